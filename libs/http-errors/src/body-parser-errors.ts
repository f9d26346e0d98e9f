import type { IncomingMessage } from 'node:http';
import type { ErrorCode } from '@upscaler/contracts';

export interface ClassifiedError {
  code: ErrorCode;
  status: number;
  message?: string;
}

/**
 * What the JSON and form body parsers (body-parser, before any route runs) report, as our codes (docs/api.md
 * "Request bodies"): a charset other than UTF-8 or a Content-Encoding we cannot decode is 415 (RFC 9110
 * §15.5.16), a body too large 413 naming the body, bytes that do not decode or parse 400. Undefined: not a
 * body-parser error.
 */
export function classifyBodyParserError(e: unknown, req: IncomingMessage): ClassifiedError | undefined {
  const err = e as { type?: unknown; status?: unknown; expose?: unknown; limit?: unknown; charset?: unknown; encoding?: unknown };
  if (typeof err !== 'object' || err === null) return undefined;
  const kind = bodyKind(req);
  switch (err.type) {
    case 'entity.too.large': {
      const limit = typeof err.limit === 'number' ? err.limit : undefined;
      const size = limit === undefined ? '' : ` ${Math.round(limit / 1024)} kB (${limit} bytes)`;
      return { code: 'payload_too_large', status: 413, message: `The ${kind} is larger than${size || ' its limit'}.` };
    }
    case 'parameters.too.many':
      return { code: 'payload_too_large', status: 413, message: `The ${kind} has too many parameters.` };
    case 'entity.parse.failed':
      return {
        code: 'invalid_request',
        status: 400,
        message: kind === 'form body' ? 'The form body could not be parsed.' : 'The body is not valid JSON.',
      };
    case 'charset.unsupported':
      return {
        code: 'unsupported_charset',
        status: 415,
        message: `${kind === 'JSON body' ? 'JSON bodies' : 'Form bodies'} must be UTF-8 (the Content-Type names charset ${String(err.charset ?? '').toLowerCase()}).`,
      };
    case 'encoding.unsupported':
      return {
        code: 'unsupported_content_encoding',
        status: 415,
        message: `Content-Encoding ${String(err.encoding ?? '')} is not supported: send the body as is, or gzip, deflate or br.`,
      };
    case 'request.size.invalid':
      return { code: 'invalid_request', status: 400, message: 'The body is not as long as its Content-Length says.' };
    case 'request.aborted':
      return { code: 'invalid_request', status: 400, message: 'The body ended before it was complete.' };
    default:
      break;
  }
  // A decompression stream that failed (gzip, deflate or br bytes that are not): body-parser passes it on as
  // a 400 http-error with no type.
  if (err.expose === true && err.status === 400 && err.type === undefined && req.headers['content-encoding']) {
    return {
      code: 'invalid_request',
      status: 400,
      message: `The body could not be decoded as Content-Encoding ${String(req.headers['content-encoding']).toLowerCase()}.`,
    };
  }
  return undefined;
}

function bodyKind(req: IncomingMessage): 'JSON body' | 'form body' | 'request body' {
  const type = String(req.headers['content-type'] ?? '').toLowerCase();
  if (/^application\/([\w.+-]+\+)?json\b/.test(type)) return 'JSON body';
  if (type.startsWith('application/x-www-form-urlencoded')) return 'form body';
  return 'request body';
}

import { ArgumentsHost, Catch, ExceptionFilter, HttpException, HttpStatus } from '@nestjs/common';
import type { IncomingMessage, ServerResponse } from 'node:http';
import type { Request, Response } from 'express';
import { DomainError, ERROR_CODES, errorBody, type ErrorCode } from '@upscaler/contracts';
import type { Logger } from '@upscaler/config';
import { classifyBodyParserError } from './body-parser-errors';
import { isDependencyUnavailable, isOutOfSpace } from './dependency-errors';
import type { ErrorResponseHook } from './error-response.hook';
import { sendJson } from './json-answer';

/** Retry-After of a 503 whose error names no wait of its own: billing or a dependency was away for a moment. */
export const RETRY_AFTER_503_SECONDS = 5;

/**
 * The one place errors become HTTP (contributing/STYLE.md): every answer is `{ "error": { "code", "message" } }`
 * with a code from libs/contracts/src/errors.ts. A service's ErrorResponseHook (optional) sees the request first.
 */
@Catch()
export class ErrorFilter implements ExceptionFilter {
  constructor(
    private readonly logger: Logger,
    private readonly hook?: ErrorResponseHook,
  ) {}

  catch(exception: unknown, host: ArgumentsHost): void {
    const res = host.switchToHttp().getResponse<Response>();
    const req = host.switchToHttp().getRequest<Request>();
    if (!this.hook || res.headersSent) return this.answer(exception, req, res);
    this.hook.beforeErrorResponse(req, res).then(
      (replacement) => this.answer(replacement ?? exception, req, res),
      (err: unknown) => {
        this.logger.error({ err, path: req.originalUrl }, 'error response hook failed');
        this.answer(exception, req, res);
      },
    );
  }

  private answer(exception: unknown, req: Request, res: Response): void {
    sendError(exception, req, res, this.logger, req.originalUrl);
  }
}

/**
 * Writes the error answer of `e` (httpErrorOf): logs it when it is a 5xx, then, unless the headers are already sent,
 * its headers and `{ "error": { "code", "message" } }` as Express's res.json would. Nest's ErrorFilter and the fast
 * paths (routes answered before Express) both answer through it.
 */
export function sendError(e: unknown, req: IncomingMessage, res: ServerResponse, logger: Logger, path = req.url): void {
  const { code, status, message, headers } = httpErrorOf(e, req);
  if (status >= 500) logger.error({ err: e, path, requestId: req.headers['x-request-id'] }, 'request failed');
  if (res.headersSent) return;
  for (const [k, v] of Object.entries(headers)) res.setHeader(k, v);
  sendJson(res, status, errorBody(code, message));
}

function messageOf(e: HttpException): string {
  const r = e.getResponse();
  if (typeof r === 'string') return r;
  const m = (r as { message?: unknown }).message;
  return Array.isArray(m) ? m.join('; ') : typeof m === 'string' ? m : e.message;
}

/** A file sent in a multipart field other than `image`: say which field it must be, and which one it came in. */
function wrongFileField(field: unknown): HttpError {
  const got = typeof field === 'string' && field !== '' ? ` (this request sent one in "${field}")` : '';
  return { code: 'invalid_request', status: 400, message: `The file goes in the multipart field "image"${got}.`, headers: {} };
}

/**
 * What an error answers over HTTP: its code, status, message and headers (Retry-After on a 503 always: the error's own
 * wait, else RETRY_AFTER_503_SECONDS). The mapping of every answer, Nest's ErrorFilter and the fast paths alike.
 */
export function httpErrorOf(e: unknown, req: IncomingMessage): HttpError {
  const answer = classify(e, req);
  // a 503 tells the client when to come back (docs/api.md "Errors")
  if (answer.status === 503 && answer.headers['Retry-After'] === undefined) {
    answer.headers['Retry-After'] = String(RETRY_AFTER_503_SECONDS);
  }
  return answer;
}

export interface HttpError {
  code: ErrorCode;
  status: number;
  message?: string;
  headers: Record<string, string>;
}

function classify(e: unknown, req: IncomingMessage): HttpError {
  if (e instanceof DomainError) {
    const headers: Record<string, string> = {};
    const retryAfter = e.details?.retryAfterSeconds;
    if (typeof retryAfter === 'number') headers['Retry-After'] = String(retryAfter);
    return { code: e.code, status: e.status, message: e.message, headers };
  }
  // multer (multipart): a file over the limit, or a malformed form
  const multerCode = (e as { code?: unknown })?.code;
  if (multerCode === 'LIMIT_FILE_SIZE') return { code: 'payload_too_large', status: 413, headers: {} };
  if (multerCode === 'LIMIT_UNEXPECTED_FILE') return wrongFileField((e as { field?: unknown }).field);
  // the same, as Nest's FileInterceptor reports it: "Unexpected file field - <name>"
  const unexpected = e instanceof HttpException && /^Unexpected (?:file )?field(?: - (.+))?$/.exec(messageOf(e) ?? '');
  if (unexpected) return wrongFileField(unexpected[1]);
  if (typeof multerCode === 'string' && multerCode.startsWith('LIMIT_')) {
    return { code: 'invalid_request', status: 400, message: (e as Error).message, headers: {} };
  }
  // body-parser (JSON and form bodies): charset, Content-Encoding, size, syntax
  const body = classifyBodyParserError(e, req);
  if (body) return { ...body, headers: {} };
  if (e instanceof HttpException) {
    const status = e.getStatus();
    if (status === HttpStatus.NOT_FOUND) return { code: 'route_not_found', status, headers: {} };
    if (status === HttpStatus.PAYLOAD_TOO_LARGE) return { code: 'payload_too_large', status, headers: {} };
    if (status === HttpStatus.UNSUPPORTED_MEDIA_TYPE) return { code: 'unsupported_media_type', status, headers: {} };
    if (status === HttpStatus.METHOD_NOT_ALLOWED) return { code: 'method_not_allowed', status, headers: {} };
    if (status === HttpStatus.SERVICE_UNAVAILABLE) {
      return { code: 'service_unavailable', status, message: messageOf(e), headers: {} };
    }
    if (status >= 400 && status < 500) return { code: 'invalid_request', status: 400, message: messageOf(e), headers: {} };
  }
  // Postgres, the object store or the broker away for a moment: a 503 the client may retry, not a 500
  if (isOutOfSpace(e)) {
    return {
      code: 'service_unavailable',
      status: 503,
      message: 'Storage is full for the moment; nothing was created or charged. Retry shortly.',
      headers: {},
    };
  }
  if (isDependencyUnavailable(e)) return { code: 'service_unavailable', status: 503, headers: {} };
  return { code: 'internal_error', status: ERROR_CODES.internal_error.status, headers: {} };
}

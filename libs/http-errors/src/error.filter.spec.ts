import { type ArgumentsHost, BadRequestException, ServiceUnavailableException } from '@nestjs/common';
import { DomainError } from '@upscaler/contracts';
import pino from 'pino';
import { ErrorFilter, RETRY_AFTER_503_SECONDS } from './error.filter';

/** What the filter wrote on Node's response: status, the headers of the error (sendJson's own aside) and body. */
function answer(exception: unknown): { status: number; headers: Record<string, string>; body: unknown } {
  const out = { status: 0, headers: {} as Record<string, string>, body: undefined as unknown };
  const JSON_HEADERS = ['Content-Type', 'Content-Length', 'ETag'];
  const res = {
    headersSent: false,
    set statusCode(s: number) {
      out.status = s;
    },
    setHeader: (k: string, v: string) => void (JSON_HEADERS.includes(k) || (out.headers[k] = v)),
    end: (text: string) => void (out.body = JSON.parse(text)),
  };
  const req = { headers: {}, originalUrl: '/api/v1/upscale', path: '/api/v1/upscale' };
  const host = { switchToHttp: () => ({ getResponse: () => res, getRequest: () => req }) } as unknown as ArgumentsHost;
  new ErrorFilter(pino({ level: 'silent' })).catch(exception, host);
  return out;
}

describe('error answers (docs/api.md "Errors")', () => {
  it('disk full: 503 service_unavailable with Retry-After and a message that says so', () => {
    const enospc = Object.assign(new Error('ENOSPC: no space left on device, write'), { code: 'ENOSPC' });
    expect(answer(enospc)).toEqual({
      status: 503,
      headers: { 'Retry-After': String(RETRY_AFTER_503_SECONDS) },
      body: {
        error: { code: 'service_unavailable', message: 'Storage is full for the moment; nothing was created or charged. Retry shortly.' },
      },
    });
  });

  it('a file in the wrong multipart field (multer, or Nest reporting it): 400 naming the right field', () => {
    const message = 'The file goes in the multipart field "image" (this request sent one in "file").';
    expect(answer(Object.assign(new Error('Unexpected field'), { code: 'LIMIT_UNEXPECTED_FILE', field: 'file' })).body).toEqual({
      error: { code: 'invalid_request', message },
    });
    expect(answer(new BadRequestException('Unexpected file field - file')).body).toEqual({ error: { code: 'invalid_request', message } });
  });

  it('503 billing_unavailable carries Retry-After', () => {
    expect(answer(new DomainError('billing_unavailable'))).toMatchObject({
      status: 503,
      headers: { 'Retry-After': String(RETRY_AFTER_503_SECONDS) },
      body: { error: { code: 'billing_unavailable' } },
    });
  });

  it('Postgres unreachable answers 503 service_unavailable with Retry-After, not 500', () => {
    const refused = Object.assign(new Error('connect ECONNREFUSED 127.0.0.1:31811'), { code: 'ECONNREFUSED', syscall: 'connect' });
    expect(answer(refused)).toEqual({
      status: 503,
      headers: { 'Retry-After': String(RETRY_AFTER_503_SECONDS) },
      body: { error: { code: 'service_unavailable', message: 'The service is temporarily unavailable.' } },
    });
  });

  it('a bug stays 500 internal_error, without Retry-After', () => {
    expect(answer(new TypeError('x is undefined'))).toEqual({
      status: 500,
      headers: {},
      body: { error: { code: 'internal_error', message: 'Internal error.' } },
    });
  });

  it('a 503 raised as a Nest exception carries Retry-After too', () => {
    expect(answer(new ServiceUnavailableException('postgres is down'))).toMatchObject({
      status: 503,
      headers: { 'Retry-After': String(RETRY_AFTER_503_SECONDS) },
      body: { error: { code: 'service_unavailable' } },
    });
  });

  it("a 429 keeps its own Retry-After (the window's end); other errors carry none", () => {
    expect(answer(new DomainError('rate_limited', undefined, { retryAfterSeconds: 17 })).headers).toEqual({ 'Retry-After': '17' });
    expect(answer(new DomainError('job_not_found')).headers).toEqual({});
  });
});

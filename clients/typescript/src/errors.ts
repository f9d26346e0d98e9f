import { UpscalerApiError, UpscalerError } from './api-error';
import { ERROR_CLASS_BY_STATUS, InternalServerError } from './generated/error-classes';
import type { ErrorCode, Job, KnownErrorCode } from './types';

export { UpscalerApiError, UpscalerError } from './api-error';
// one class per HTTP status (InvalidRequestError, NotFoundError, ...), from the OpenAPI document's x-error-codes
export * from './generated/error-classes';

/** The typed error for an error answer (its body already read as text). */
export function apiErrorFrom(status: number, headers: Headers, text: string): UpscalerApiError {
  let code: string = status >= 500 ? 'internal_error' : 'invalid_request';
  let message = text.slice(0, 500) || `HTTP ${status}`;
  try {
    const body = JSON.parse(text) as { error?: { code?: unknown; message?: unknown } };
    if (typeof body.error?.code === 'string') code = body.error.code;
    if (typeof body.error?.message === 'string') message = body.error.message;
  } catch {
    // not JSON (a proxy's page): keep the text
  }
  const Kind = ERROR_CLASS_BY_STATUS[status] ?? (status >= 500 ? InternalServerError : UpscalerApiError);
  return new Kind(status, code, message, headers.get('x-request-id') ?? undefined, headers);
}

/** A job that ended failed or cancelled where the caller needed its result (download, the CLI). */
export class JobFailedError extends UpscalerError {
  override name = 'JobFailedError';
  /** The failed job's error code (`corrupt_image`, `engine_error`, ...) or `cancelled`. */
  readonly code: ErrorCode;
  constructor(readonly job: Job) {
    const code = job.status === 'cancelled' ? 'cancelled' : (job.error?.code ?? 'engine_error');
    super(`job ${job.id} ${job.status}: ${job.error ? `${job.error.code}: ${job.error.message}` : job.status}`);
    this.code = code;
  }
}

/** A webhook delivery that does not verify: bad signature, missing header, or a timestamp too far from now. */
export class WebhookVerificationError extends UpscalerError {
  override name = 'WebhookVerificationError';
}

export function isUpscalerApiError<C extends KnownErrorCode>(e: unknown, code?: C): e is UpscalerApiError & { code: C } {
  return e instanceof UpscalerApiError && (code === undefined || e.code === code);
}

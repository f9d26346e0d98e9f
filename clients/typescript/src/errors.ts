import type { ErrorCode, Job, KnownErrorCode } from './types';

/** Anything this SDK throws. */
export class UpscalerError extends Error {
  override name = 'UpscalerError';
}

/**
 * An error answer of the API. Branch on `code` (spec 7: stable, machine-readable), never on `message`; the
 * subclasses group the HTTP statuses so a `catch` can test `instanceof` as well.
 */
export class UpscalerApiError extends UpscalerError {
  override name = 'UpscalerApiError';
  constructor(
    readonly status: number,
    readonly code: ErrorCode,
    message: string,
    /** The X-Request-Id of the answer: quote it when reporting a problem. */
    readonly requestId: string | undefined,
    readonly headers: Headers,
  ) {
    super(`${code} (HTTP ${status}): ${message}`);
  }

  /** True when this is an API error with the given code (narrows `code` for the type checker). */
  is<C extends KnownErrorCode>(code: C): this is UpscalerApiError & { code: C } {
    return this.code === code;
  }
}

export class InvalidRequestError extends UpscalerApiError {
  override name = 'InvalidRequestError';
}
export class AuthenticationError extends UpscalerApiError {
  override name = 'AuthenticationError';
}
export class InsufficientCreditsError extends UpscalerApiError {
  override name = 'InsufficientCreditsError';
}
export class PermissionDeniedError extends UpscalerApiError {
  override name = 'PermissionDeniedError';
}
export class NotFoundError extends UpscalerApiError {
  override name = 'NotFoundError';
}
export class ConflictError extends UpscalerApiError {
  override name = 'ConflictError';
}
export class PayloadTooLargeError extends UpscalerApiError {
  override name = 'PayloadTooLargeError';
}
export class UnsupportedMediaTypeError extends UpscalerApiError {
  override name = 'UnsupportedMediaTypeError';
}
export class RateLimitError extends UpscalerApiError {
  override name = 'RateLimitError';
}
export class ServiceUnavailableError extends UpscalerApiError {
  override name = 'ServiceUnavailableError';
}
export class InternalServerError extends UpscalerApiError {
  override name = 'InternalServerError';
}

const BY_STATUS: Record<number, typeof UpscalerApiError> = {
  400: InvalidRequestError,
  401: AuthenticationError,
  402: InsufficientCreditsError,
  403: PermissionDeniedError,
  404: NotFoundError,
  409: ConflictError,
  413: PayloadTooLargeError,
  415: UnsupportedMediaTypeError,
  429: RateLimitError,
  500: InternalServerError,
  503: ServiceUnavailableError,
};

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
  const Kind = BY_STATUS[status] ?? (status >= 500 ? InternalServerError : UpscalerApiError);
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

/**
 * Every error code the service can answer with, its HTTP status and default message: one table
 * (contributing/STYLE.md). Spec section 7 fixes unauthorized/insufficient_credits/forbidden/conflict/
 * payload_too_large; the rest are our documented choices (docs/api.md lists them all).
 */
export const ERROR_CODES = {
  // 400
  invalid_request: { status: 400, message: 'The request is invalid.' },
  invalid_target: { status: 400, message: 'target must be one of 2k, 3k, 4k.' },
  invalid_format: { status: 400, message: 'format must be one of png, jpeg, webp, avif.' },
  invalid_image_url: { status: 400, message: 'image_url must be a publicly reachable https URL.' },
  image_fetch_failed: { status: 400, message: 'The image could not be fetched from image_url.' },
  image_too_large_to_upscale: {
    status: 400,
    message: 'The image is too large to upscale: even the 2k target would exceed the output pixel limit.',
  },
  invalid_size: {
    status: 400,
    message: 'width and height must be whole numbers of pixels from 1 to 65500, fit one of within, cover, exact, and target left out.',
  },
  size_out_of_reach: {
    status: 400,
    message: 'The requested size needs more than 4x this image (4k, the largest target).',
  },
  animated_image: { status: 400, message: 'Animated images are not supported.' },
  invalid_image: { status: 400, message: 'The image could not be decoded.' },
  image_dimensions_too_large: { status: 400, message: 'The image has more pixels than the input limit.' },
  idempotency_key_reused: {
    status: 400,
    message: 'This Idempotency-Key was already used with different request parameters.',
  },
  invalid_cursor: { status: 400, message: 'starting_after is not a job of this account.' },
  // 401 / 402 / 403
  unauthorized: { status: 401, message: 'Missing, malformed, unknown or revoked API key.' },
  insufficient_credits: { status: 402, message: 'The balance is lower than the credits the job needs.' },
  forbidden: { status: 403, message: 'The API key lacks the scope this endpoint requires.' },
  // 404
  not_found: { status: 404, message: 'No such resource.' },
  job_not_found: { status: 404, message: 'No job with that id.' },
  route_not_found: { status: 404, message: 'No such endpoint.' },
  // 405 / 409
  method_not_allowed: { status: 405, message: 'Method not allowed.' },
  conflict: { status: 409, message: 'The job already reached a final state.' },
  api_key_limit_reached: {
    status: 409,
    message: 'The account has as many active API keys as it may have; revoke one first.',
  },
  webhook_endpoint_limit_reached: {
    status: 409,
    message: 'The account has as many enabled webhook endpoints as it may have; delete one first.',
  },
  webhook_endpoint_disabled: {
    status: 409,
    message: 'The webhook endpoint is disabled; enable it first.',
  },
  webhook_endpoint_deleted: {
    status: 409,
    message: 'The webhook endpoint was deleted; register a new one.',
  },
  result_not_ready: { status: 409, message: 'The job has no result yet: it has not succeeded.' },
  // 410
  files_expired: {
    status: 410,
    message: "The job's files were deleted: their retention ran out (files_expire_at) or an operator deleted them.",
  },
  idempotency_in_progress: {
    status: 409,
    message: 'A request with this Idempotency-Key is still being processed; retry shortly.',
  },
  // 413 / 415 / 429
  payload_too_large: { status: 413, message: 'The image is larger than 10 MiB (10,485,760 bytes).' },
  unsupported_media_type: {
    status: 415,
    message: 'Unsupported image format: JPEG, PNG, WebP and AVIF are accepted (detected from the bytes).',
  },
  unsupported_charset: { status: 415, message: 'JSON bodies must be UTF-8.' },
  unsupported_content_encoding: {
    status: 415,
    message: 'The Content-Encoding is not supported: send the body as is, or gzip, deflate or br.',
  },
  rate_limited: { status: 429, message: 'Rate limit exceeded; retry after the time in Retry-After.' },
  // 5xx
  internal_error: { status: 500, message: 'Internal error.' },
  billing_unavailable: {
    status: 503,
    message: 'Billing did not answer in time; nothing was reserved. Retry shortly.',
  },
  service_unavailable: { status: 503, message: 'The service is temporarily unavailable.' },
  // Failed-job codes (job.error.code; never an HTTP answer by themselves)
  engine_error: { status: 500, message: 'The engine failed to process the image.' },
  corrupt_image: { status: 422, message: 'The image is corrupt: it could not be fully decoded.' },
  processing_timeout: { status: 500, message: 'Processing did not finish in time.' },
  attempts_exhausted: { status: 500, message: 'Processing was interrupted too many times.' },
  storage_unavailable: { status: 503, message: 'Storage could not be read or written on any attempt (full, read-only or unreachable).' },
} as const satisfies Record<string, { status: number; message: string }>;

export type ErrorCode = keyof typeof ERROR_CODES;

/** Codes only a failed job's `error.code` carries: never an HTTP answer by themselves (the table's last group). */
export const FAILED_JOB_ONLY_CODES = [
  'engine_error',
  'corrupt_image',
  'processing_timeout',
  'attempts_exhausted',
  'storage_unavailable',
] as const satisfies readonly ErrorCode[];

/** The codes an HTTP error answer can carry, each with its status and default message (in the table's order). */
export function httpErrorCodes(): Record<string, { status: number; message: string }> {
  const jobOnly: readonly string[] = FAILED_JOB_ONLY_CODES;
  return Object.fromEntries(Object.entries(ERROR_CODES).filter(([code]) => !jobOnly.includes(code)));
}

/** The failed-job codes a job's `error.code` can carry (spec 7, rule 5). */
export const JOB_FAILURE_CODES = [
  'engine_error',
  'corrupt_image',
  'processing_timeout',
  'attempts_exhausted',
  'storage_unavailable',
  'image_too_large_to_upscale',
  'animated_image',
  'unsupported_media_type',
] as const satisfies readonly ErrorCode[];
export type JobFailureCode = (typeof JOB_FAILURE_CODES)[number];

/** A typed domain error: thrown or returned by deciders and services, mapped to HTTP once. */
export class DomainError extends Error {
  constructor(
    readonly code: ErrorCode,
    message?: string,
    readonly details?: Record<string, unknown>,
  ) {
    super(message ?? ERROR_CODES[code].message);
    this.name = 'DomainError';
  }
  get status(): number {
    return ERROR_CODES[this.code].status;
  }
}

export function isDomainError(e: unknown): e is DomainError {
  return e instanceof DomainError;
}

export interface ErrorBody {
  error: { code: string; message: string };
}

export function errorBody(code: ErrorCode, message?: string): ErrorBody {
  return { error: { code, message: message ?? ERROR_CODES[code].message } };
}

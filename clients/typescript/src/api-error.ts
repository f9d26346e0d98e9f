import type { ErrorCode, KnownErrorCode } from './types';

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

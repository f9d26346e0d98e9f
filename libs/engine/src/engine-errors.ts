import { DomainError, type ErrorCode } from '@upscaler/contracts';

/** The engine's typed failures: a DomainError whose code comes from contracts/errors.ts (spec 7). */
export class EngineError extends DomainError {
  constructor(code: ErrorCode, message?: string, details?: Record<string, unknown>) {
    super(code, message, details);
    this.name = 'EngineError';
  }
}

/** A job stopped between two tiles because its AbortSignal fired. Not a failure: the caller asked for it. */
export class EngineCancelledError extends Error {
  readonly code = 'cancelled' as const;
  constructor(message = 'The upscale was cancelled.') {
    super(message);
    this.name = 'EngineCancelledError';
  }
}

export function isEngineCancelledError(e: unknown): e is EngineCancelledError {
  return e instanceof EngineCancelledError;
}

import type { Request, Response } from 'express';

/**
 * Runs before the error filter writes an error answer (a service names its class in runService's
 * `errorResponseHook`).
 * It may set headers on `res` and may return a replacement error to answer instead (for example 429 when the
 * failed request also used up a rate-limit window); returning undefined keeps the original error.
 */
export interface ErrorResponseHook {
  beforeErrorResponse(req: Request, res: Response): Promise<unknown>;
}

import { CanActivate, ExecutionContext, Injectable } from '@nestjs/common';
import type { Request, Response } from 'express';
import type { ErrorResponseHook } from '@upscaler/http-errors';
import { RateLimiter } from './rate-limiter';

/** Public API paths whose answers report a rate-limit window (spec 8): /api/v1 minus the operator API and signed files. */
export function isPublicApiPath(path: string): boolean {
  return /^\/api\/v1(\/|$)/.test(path) && !/^\/api\/v1\/(admin|files)(\/|$)/.test(path);
}

/**
 * Error answers that never reached a key check (401 for a missing or wrong key, a body that is not JSON or is
 * too large, an unknown /api/v1 route) count against the client address's window and report it, so that every
 * public response carries X-RateLimit-*; past the limit the answer becomes 429. Keyed answers already carry
 * their key's window and are left alone.
 */
@Injectable()
export class UnkeyedErrorRateLimit implements ErrorResponseHook {
  constructor(private readonly limiter: RateLimiter) {}

  async beforeErrorResponse(req: Request, res: Response): Promise<unknown> {
    if (!isPublicApiPath(req.path) || res.getHeader('X-RateLimit-Limit') !== undefined) return undefined;
    return this.limiter.hitAddress(req, res);
  }
}

/** For public routes that take no key (the OpenAPI document): count and report the client address's window. */
@Injectable()
export class AddressRateLimitGuard implements CanActivate {
  constructor(private readonly limiter: RateLimiter) {}

  async canActivate(ctx: ExecutionContext): Promise<boolean> {
    const http = ctx.switchToHttp();
    const over = await this.limiter.hitAddress(http.getRequest<Request>(), http.getResponse<Response>());
    if (over) throw over;
    return true;
  }
}

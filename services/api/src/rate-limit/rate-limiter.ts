import { Inject, Injectable } from '@nestjs/common';
import type { Response } from 'express';
import { DomainError } from '@upscaler/contracts';
import { RUNTIME, type Runtime } from '@upscaler/runtime';

/**
 * Per-key fixed one-minute windows counted in Postgres, so the limit holds across api replicas
 * (DESIGN 4). Every keyed response carries X-RateLimit-Limit / -Remaining / -Reset (unix seconds of
 * the window's end); a 429 adds Retry-After (seconds).
 */
@Injectable()
export class RateLimiter {
  private lastPrune = 0;

  constructor(@Inject(RUNTIME) private readonly rt: Runtime) {}

  async hit(keyId: string, limit: number, res: Response): Promise<void> {
    const now = this.rt.clock.now().getTime();
    const windowStart = Math.floor(now / 60_000) * 60_000;
    const resetAt = windowStart + 60_000;
    const count = await this.rt.readModels.hitRateLimit(keyId, new Date(windowStart));
    res.setHeader('X-RateLimit-Limit', String(limit));
    res.setHeader('X-RateLimit-Remaining', String(Math.max(0, limit - count)));
    res.setHeader('X-RateLimit-Reset', String(Math.ceil(resetAt / 1000)));
    if (now - this.lastPrune > 5 * 60_000) {
      this.lastPrune = now;
      void this.rt.readModels.pruneRateLimits(new Date(windowStart - 60_000)).catch(() => undefined);
    }
    if (count > limit) {
      throw new DomainError('rate_limited', undefined, { retryAfterSeconds: Math.max(1, Math.ceil((resetAt - now) / 1000)) });
    }
  }
}

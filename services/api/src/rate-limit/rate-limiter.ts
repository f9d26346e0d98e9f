import { Inject, Injectable } from '@nestjs/common';
import type { Request, Response } from 'express';
import { DomainError } from '@upscaler/contracts';
import { CLOCK, type Clock, CONFIG } from '@upscaler/runtime';
import type { AppConfig } from '@upscaler/platform';
import { ReadModelRepository } from '@upscaler/read-models';

/**
 * Fixed one-minute windows counted in Postgres, so the limit holds across api replicas (docs/design.md §4).
 * A request with a valid key counts against its key's window; a request answered without one (a missing or
 * wrong key, an unparsable body, an unknown /api/v1 route, the OpenAPI document) counts against its client
 * address's window at the default rate, so every public response reports a window (spec 8). Each such
 * response carries X-RateLimit-Limit / -Remaining / -Reset (unix seconds of the window's end); a 429 adds
 * Retry-After (seconds).
 */
@Injectable()
export class RateLimiter {
  private lastPrune = 0;

  constructor(
    @Inject(CLOCK) private readonly clock: Clock,
    @Inject(CONFIG) private readonly config: AppConfig,
    private readonly readModels: ReadModelRepository,
  ) {}

  /** Counts a keyed request; throws rate_limited past the key's limit. */
  async hit(keyId: string, limit: number, res: Response): Promise<void> {
    const over = await this.count(keyId, limit, res);
    if (over) throw over;
  }

  /** Counts a request that has no valid key against its client address; returns rate_limited past the limit. */
  async hitAddress(req: Request, res: Response): Promise<DomainError | undefined> {
    return this.count(`addr:${req.ip ?? req.socket.remoteAddress ?? 'unknown'}`, this.config.rateLimitPerMinute, res);
  }

  private async count(bucket: string, limit: number, res: Response): Promise<DomainError | undefined> {
    const now = this.clock.now().getTime();
    const windowStart = Math.floor(now / 60_000) * 60_000;
    const resetAt = windowStart + 60_000;
    const count = await this.readModels.hitRateLimit(bucket, new Date(windowStart));
    res.setHeader('X-RateLimit-Limit', String(limit));
    res.setHeader('X-RateLimit-Remaining', String(Math.max(0, limit - count)));
    res.setHeader('X-RateLimit-Reset', String(Math.ceil(resetAt / 1000)));
    if (now - this.lastPrune > 5 * 60_000) {
      this.lastPrune = now;
      void this.readModels.pruneRateLimits(new Date(windowStart - 60_000)).catch(() => undefined);
    }
    if (count <= limit) return undefined;
    return new DomainError('rate_limited', undefined, { retryAfterSeconds: Math.max(1, Math.ceil((resetAt - now) / 1000)) });
  }
}

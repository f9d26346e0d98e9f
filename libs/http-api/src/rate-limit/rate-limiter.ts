import { Inject, Injectable, type OnModuleDestroy, type OnModuleInit } from '@nestjs/common';
import type { Request } from 'express';
import type { ServerResponse } from 'node:http';
import { DomainError } from '@upscaler/contracts';
import { CLOCK, type Clock, CONFIG, LOGGER } from '@upscaler/runtime';
import type { AppConfig, Logger } from '@upscaler/config';
import { ReadModelRepository } from '@upscaler/projections';
import { WINDOW_MS, WindowCounter } from './window-counter';

/** How often the counters of past windows are deleted from the store. */
const PRUNE_EVERY_MS = 5 * 60_000;

/**
 * Fixed one-minute windows, counted in memory per replica and settled with the counters in Postgres in the
 * background, so the limit holds across api replicas (docs/design.md §4; how exactly: WindowCounter). A request
 * with a valid key counts against its key's window; a request answered without one (a missing or wrong key, an
 * unparsable body, an unknown /api/v1 route, the OpenAPI document) counts against its client address's window at
 * the default rate, so every public response reports a window (spec 8). Each such response carries
 * X-RateLimit-Limit / -Remaining / -Reset (unix seconds of the window's end) and the same window as the IETF
 * fields RateLimit-Policy / RateLimit (draft-ietf-httpapi-ratelimit-headers; docs/api.md "Rate limits"); a 429
 * adds Retry-After (seconds).
 */
@Injectable()
export class RateLimiter implements OnModuleInit, OnModuleDestroy {
  private readonly counter: WindowCounter;
  private lastPrune = 0;
  private lastSettleError = 0;

  constructor(
    @Inject(CLOCK) private readonly clock: Clock,
    @Inject(CONFIG) private readonly config: AppConfig,
    @Inject(LOGGER) private readonly logger: Logger,
    private readonly readModels: ReadModelRepository,
  ) {
    this.counter = new WindowCounter(
      readModels,
      () => this.clock.now().getTime(),
      (err) => {
        // at most one line a minute while Postgres is away; the hits stay counted here and go with the next settle
        const now = Date.now();
        if (now - this.lastSettleError < 60_000) return;
        this.lastSettleError = now;
        this.logger.warn({ err }, 'rate-limit counters not settled; retrying');
      },
    );
  }

  onModuleInit(): void {
    this.counter.start();
  }

  async onModuleDestroy(): Promise<void> {
    await this.counter.stop().catch(() => undefined);
  }

  /** Counts a keyed request; throws rate_limited past the key's limit. */
  async hit(keyId: string, limit: number, res: ServerResponse): Promise<void> {
    const over = await this.count(keyId, limit, res);
    if (over) throw over;
  }

  /** Counts a request that has no valid key against its client address; returns rate_limited past the limit. */
  async hitAddress(req: Request, res: ServerResponse): Promise<DomainError | undefined> {
    return this.count(`addr:${req.ip ?? req.socket.remoteAddress ?? 'unknown'}`, this.config.rateLimitPerMinute, res);
  }

  private async count(bucket: string, limit: number, res: ServerResponse): Promise<DomainError | undefined> {
    const now = this.clock.now().getTime();
    const windowStart = Math.floor(now / WINDOW_MS) * WINDOW_MS;
    const resetAt = windowStart + WINDOW_MS;
    const count = await this.counter.hit(bucket, limit, windowStart);
    const remaining = Math.max(0, limit - count);
    const secondsLeft = Math.max(1, Math.ceil((resetAt - now) / 1000));
    res.setHeader('X-RateLimit-Limit', String(limit));
    res.setHeader('X-RateLimit-Remaining', String(remaining));
    res.setHeader('X-RateLimit-Reset', String(Math.ceil(resetAt / 1000)));
    res.setHeader('RateLimit-Policy', `"default";q=${limit};w=${WINDOW_MS / 1000}`);
    res.setHeader('RateLimit', `"default";r=${remaining};t=${secondsLeft}`);
    if (now - this.lastPrune > PRUNE_EVERY_MS) {
      this.lastPrune = now;
      void this.readModels.pruneRateLimits(new Date(windowStart - 2 * WINDOW_MS)).catch(() => undefined);
    }
    if (count <= limit) return undefined;
    return new DomainError('rate_limited', undefined, { retryAfterSeconds: secondsLeft });
  }
}

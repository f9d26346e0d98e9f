import { Inject, Injectable } from '@nestjs/common';
import type { IncomingMessage, ServerResponse } from 'node:http';
import { isId } from '@upscaler/contracts';
import { type AppConfig, type Logger } from '@upscaler/config';
import { sendError, sendJson } from '@upscaler/http-errors';
import { CONFIG, LOGGER, type FastPath } from '@upscaler/runtime';
import { ApiKeyCache, type ActiveKey, bearerApiKey, hashApiKey } from '@upscaler/api-keys';
import { RateLimiter } from '@upscaler/http-api';
import { JobViews } from './job-views';
import { JOB_ENDPOINTS } from './jobs.routes';

const JOB_PATH = /^\/api\/v1\/jobs\/([^/?]+)$/;

interface Poll {
  key: ActiveKey;
  jobId: string;
}

/**
 * GET /api/v1/jobs/{id} (spec 4.2), the call every client polls, answered before Express (libs/runtime
 * fast-path.ts) when its key is in the key cache: the same answer as JobsController.get behind ApiKeyGuard, in the
 * same order (key, rate limit, scope, job) with the same headers and bodies, for a fraction of the cost
 * (docs/benchmarks.md "API hot path"). Everything else goes on to Express untouched: a key that is not cached,
 * unknown or without jobs:read (the 401 and 403 answers, and their counting), a malformed id, a query string,
 * a conditional request (If-None-Match: Express answers 304), a Prefer header (a wait: JobsController.get), another
 * method or spelling of the path.
 */
@Injectable()
export class JobPollFastPath implements FastPath<Poll> {
  readonly route = '/api/v1/jobs/:id';

  constructor(
    @Inject(CONFIG) private readonly config: AppConfig,
    @Inject(LOGGER) private readonly logger: Logger,
    private readonly keys: ApiKeyCache,
    private readonly limiter: RateLimiter,
    private readonly views: JobViews,
  ) {}

  accept(req: IncomingMessage): Poll | undefined {
    if (
      req.method !== 'GET' ||
      req.headers['if-none-match'] !== undefined ||
      req.headers['if-modified-since'] !== undefined ||
      req.headers.prefer !== undefined
    ) {
      return undefined;
    }
    const path = JOB_PATH.exec(req.url ?? '');
    if (!path || !isId(path[1], 'job')) return undefined;
    const secret = bearerApiKey(req.headers.authorization);
    const key = secret ? this.keys.cached(hashApiKey(secret)) : undefined;
    // the scope GET /jobs/{id} declares (JOB_ENDPOINTS.getJob, which JobsController.get serves)
    if (!key || !key.scopes.includes(JOB_ENDPOINTS.getJob.auth.scope)) return undefined;
    return { key, jobId: path[1] };
  }

  async answer(req: IncomingMessage, res: ServerResponse, { key, jobId }: Poll): Promise<void> {
    try {
      await this.limiter.hit(key.keyId, key.rateLimitPerMinute ?? this.config.rateLimitPerMinute, res);
      // as JobsController.get, once past the guard's rate limit: the answer depends on Prefer (a wait)
      res.setHeader('Vary', 'Prefer');
      sendJson(res, 200, await this.views.get({ accountId: key.accountId, keyId: key.keyId, scopes: key.scopes }, jobId));
    } catch (err) {
      // answered as the error filter answers (libs/http-errors error.filter.ts): a rate limit's 429, a missing job's
      // 404, a database away for a moment as 503 with Retry-After
      sendError(err, req, res, this.logger);
    }
  }
}

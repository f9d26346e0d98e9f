import type { IncomingMessage, ServerResponse } from 'node:http';
import { DomainError, type JobView } from '@upscaler/contracts';
import type { AppConfig } from '@upscaler/config';
import pino from 'pino';
import { type ActiveKey, type ApiKeyCache, hashApiKey } from '@upscaler/api-keys';
import type { RateLimiter } from '@upscaler/http-api';
import { JobPollFastPath } from './job-poll.fast-path';
import type { JobViews } from './job-views';

const SECRET = `usk_${'a'.repeat(32)}`;
const JOB = 'job_0190a1b2c3d47e8f9a0b1c2d3e4f5a6b';
const KEY: ActiveKey = {
  keyId: 'key_0190a1b2c3d47e8f9a0b1c2d3e4f5a6d',
  accountId: 'acct_0190a1b2c3d47e8f9a0b1c2d3e4f5a6c',
  name: null,
  scopes: ['jobs:read'],
  prefix: SECRET.slice(0, 12),
  hash: hashApiKey(SECRET),
  rateLimitPerMinute: null,
  createdAt: '2026-11-24T00:00:00.000Z',
} as ActiveKey;

function fastPath(opts: { key?: ActiveKey; over?: boolean; view?: JobView | DomainError | Error } = {}) {
  const hits: string[] = [];
  const keys = { cached: (hash: string) => (hash === hashApiKey(SECRET) ? (opts.key ?? KEY) : undefined) } as unknown as ApiKeyCache;
  const limiter = {
    hit: async (keyId: string, limit: number, res: ServerResponse) => {
      hits.push(`${keyId} ${limit}`);
      res.setHeader('X-RateLimit-Limit', String(limit));
      if (opts.over) throw new DomainError('rate_limited', undefined, { retryAfterSeconds: 17 });
    },
  } as unknown as RateLimiter;
  const views = {
    get: async () => {
      if (opts.view instanceof Error) throw opts.view;
      return opts.view ?? ({ id: JOB, object: 'job', status: 'queued' } as JobView);
    },
  } as unknown as JobViews;
  const config = { rateLimitPerMinute: 60 } as AppConfig;
  return { path: new JobPollFastPath(config, pino({ level: 'silent' }), keys, limiter, views), hits };
}

function request(url: string, headers: Record<string, string> = { authorization: `Bearer ${SECRET}` }, method = 'GET'): IncomingMessage {
  return { method, url, headers } as unknown as IncomingMessage;
}

function response() {
  const out = { status: 0, headers: {} as Record<string, string>, body: '' };
  const res = {
    headersSent: false,
    set statusCode(s: number) {
      out.status = s;
    },
    setHeader: (k: string, v: string | number) => void (out.headers[k.toLowerCase()] = String(v)),
    end: (b: string) => void (out.body = b),
  } as unknown as ServerResponse;
  return { res, out };
}

describe('JobPollFastPath: GET /api/v1/jobs/{id} answered before Express when its key is cached', () => {
  it('accepts a GET of a job id with a cached key that has jobs:read', () => {
    expect(fastPath().path.accept(request(`/api/v1/jobs/${JOB}`))).toEqual({ key: KEY, jobId: JOB });
  });

  it.each([
    [
      'a key that is not cached (unknown, revoked, or not loaded yet)',
      request(`/api/v1/jobs/${JOB}`, { authorization: `Bearer usk_${'b'.repeat(32)}` }),
    ],
    ['no Authorization', request(`/api/v1/jobs/${JOB}`, {})],
    ['a malformed key', request(`/api/v1/jobs/${JOB}`, { authorization: 'Bearer usk_short' })],
    ['a query string', request(`/api/v1/jobs/${JOB}?x=1`)],
    ['a malformed job id', request('/api/v1/jobs/job_123')],
    ['the result route', request(`/api/v1/jobs/${JOB}/result`)],
    ['a trailing slash', request(`/api/v1/jobs/${JOB}/`)],
    ['another method', request(`/api/v1/jobs/${JOB}`, { authorization: `Bearer ${SECRET}` }, 'DELETE')],
    ['HEAD', request(`/api/v1/jobs/${JOB}`, { authorization: `Bearer ${SECRET}` }, 'HEAD')],
    [
      'If-None-Match (Express answers 304)',
      request(`/api/v1/jobs/${JOB}`, { authorization: `Bearer ${SECRET}`, 'if-none-match': 'W/"x"' }),
    ],
    [
      'Prefer: wait=10 (JobsController.get waits)',
      request(`/api/v1/jobs/${JOB}`, { authorization: `Bearer ${SECRET}`, prefer: 'wait=10' }),
    ],
  ])('declines %s, for Express to answer', (_, req) => {
    expect(fastPath().path.accept(req)).toBeUndefined();
  });

  it('declines a key without jobs:read (Express counts it and answers 403)', () => {
    expect(fastPath({ key: { ...KEY, scopes: ['jobs:write'] } }).path.accept(request(`/api/v1/jobs/${JOB}`))).toBeUndefined();
  });

  it("answers 200 with the job as Express's res.json would, after counting the key's hit", async () => {
    const { path, hits } = fastPath();
    const { res, out } = response();
    await path.answer(request(`/api/v1/jobs/${JOB}`), res, { key: KEY, jobId: JOB });
    const body = JSON.stringify({ id: JOB, object: 'job', status: 'queued' });
    expect(hits).toEqual([`${KEY.keyId} 60`]);
    expect(out).toEqual({
      status: 200,
      headers: {
        vary: 'Prefer',
        'x-ratelimit-limit': '60',
        'content-type': 'application/json; charset=utf-8',
        'content-length': String(body.length),
        etag: expect.stringMatching(/^W\/"[0-9a-f]+-[A-Za-z0-9+/]{27}"$/),
      },
      body,
    });
  });

  it('answers 429 rate_limited with Retry-After, and 404 job_not_found, as the error filter does', async () => {
    const limited = response();
    await fastPath({ over: true }).path.answer(request(`/api/v1/jobs/${JOB}`), limited.res, { key: KEY, jobId: JOB });
    expect([limited.out.status, limited.out.headers['retry-after'], JSON.parse(limited.out.body).error.code]).toEqual([
      429,
      '17',
      'rate_limited',
    ]);
    const missing = response();
    await fastPath({ view: new DomainError('job_not_found') }).path.answer(request(`/api/v1/jobs/${JOB}`), missing.res, {
      key: KEY,
      jobId: JOB,
    });
    expect([missing.out.status, JSON.parse(missing.out.body)]).toEqual([
      404,
      { error: { code: 'job_not_found', message: 'No job with that id.' } },
    ]);
  });

  it('Postgres away for a moment answers 503 service_unavailable with Retry-After 5, as the error filter does', async () => {
    const { res, out } = response();
    const refused = Object.assign(new Error('connect ECONNREFUSED 127.0.0.1:5432'), { code: 'ECONNREFUSED' });
    await fastPath({ view: refused }).path.answer(request(`/api/v1/jobs/${JOB}`), res, { key: KEY, jobId: JOB });
    expect([out.status, out.headers['retry-after'], JSON.parse(out.body).error.code]).toEqual([503, '5', 'service_unavailable']);
  });

  it('an unexpected failure (a bug) answers 500 internal_error', async () => {
    const { res, out } = response();
    await fastPath({ view: new TypeError("Cannot read properties of undefined (reading 'status')") }).path.answer(
      request(`/api/v1/jobs/${JOB}`),
      res,
      { key: KEY, jobId: JOB },
    );
    expect([out.status, JSON.parse(out.body).error.code]).toEqual([500, 'internal_error']);
  });
});

import { InternalServerError, RateLimitError, ServiceUnavailableError } from './errors';
import { retryAfterMs, Transport, type RetryInfo } from './http';

type Answer = { status: number; headers?: Record<string, string>; body?: unknown } | Error;

/** A fetch that answers from a script and records what it was asked. */
function scripted(answers: Answer[]) {
  const calls: Array<{ url: string; init: RequestInit }> = [];
  const fetchImpl = (async (url: string, init: RequestInit) => {
    calls.push({ url, init });
    const a = answers.shift();
    if (!a) throw new Error('no more answers scripted');
    if (a instanceof Error) throw a;
    return new Response(a.body === undefined ? null : JSON.stringify(a.body), { status: a.status, headers: a.headers });
  }) as unknown as typeof fetch;
  return { fetchImpl, calls };
}

const rateLimited = (retryAfter: string): Answer => ({
  status: 429,
  headers: { 'retry-after': retryAfter },
  body: { error: { code: 'rate_limited', message: 'Rate limit exceeded; retry after the time in Retry-After.' } },
});

describe('retryAfterMs', () => {
  it('reads seconds and HTTP dates (RFC 9110), and nothing else', () => {
    expect(retryAfterMs('17')).toBe(17_000);
    expect(retryAfterMs('Thu, 01 Jan 2026 00:00:30 GMT', Date.UTC(2026, 0, 1, 0, 0, 0))).toBe(30_000);
    expect(retryAfterMs(null)).toBeUndefined();
    expect(retryAfterMs('soon')).toBeUndefined();
  });
});

describe('Transport', () => {
  it('takes the base URL with or without /api/v1', () => {
    const a = new Transport({ baseUrl: 'http://h:1/api/v1/', fetch: scripted([]).fetchImpl });
    const b = new Transport({ baseUrl: 'http://h:1', fetch: scripted([]).fetchImpl });
    const c = new Transport({ baseUrl: 'https://h/upscaler/api/v1', fetch: scripted([]).fetchImpl });
    expect(a.url('/api/v1/jobs', { limit: 2, status: undefined })).toBe('http://h:1/api/v1/jobs?limit=2');
    expect(b.url('/api/v1/jobs')).toBe('http://h:1/api/v1/jobs');
    expect(c.url('/api/v1/account')).toBe('https://h/upscaler/api/v1/account');
  });

  it('retries a 429 after Retry-After and a 503 after its Retry-After, then answers; the key goes on every attempt', async () => {
    const { fetchImpl, calls } = scripted([
      rateLimited('0'),
      { status: 503, headers: { 'retry-after': '0' }, body: { error: { code: 'service_unavailable', message: 'x' } } },
      { status: 200, body: { ok: 1 } },
    ]);
    const retries: RetryInfo[] = [];
    const t = new Transport({ baseUrl: 'http://h:1', apiKey: 'usk_k', fetch: fetchImpl, onRetry: (i) => retries.push(i) });
    await expect(t.json('GET', '/api/v1/account')).resolves.toMatchObject({ status: 200, body: { ok: 1 } });
    expect(calls).toHaveLength(3);
    for (const c of calls) expect((c.init.headers as Record<string, string>).authorization).toBe('Bearer usk_k');
    expect(retries.map((r) => [r.attempt, r.status, r.code, r.delayMs])).toEqual([
      [1, 429, 'rate_limited', 0],
      [2, 503, 'service_unavailable', 0],
    ]);
  });

  it('sends the same multipart body and Idempotency-Key again on a retried create', async () => {
    const bodies: string[] = [];
    const keys: Array<string | undefined> = [];
    const answers = [rateLimited('0'), { status: 202, body: { id: 'job_1' } }];
    const fetchImpl = (async (_url: string, init: RequestInit) => {
      bodies.push(await new Response(init.body as FormData).text());
      keys.push((init.headers as Record<string, string>)['idempotency-key']);
      const a = answers.shift() as { status: number; headers?: Record<string, string>; body: unknown };
      return new Response(JSON.stringify(a.body), { status: a.status, headers: a.headers });
    }) as unknown as typeof fetch;
    const form = new FormData();
    form.append('image', new Blob([new Uint8Array([137, 80, 78, 71])]), 'a.png');
    form.append('target', '4k');
    const t = new Transport({ baseUrl: 'http://h:1', fetch: fetchImpl });
    await t.request('POST', '/api/v1/upscale', { body: form, headers: { 'idempotency-key': 'k1' }, repeatable: true });
    expect(keys).toEqual(['k1', 'k1']);
    expect(bodies).toHaveLength(2);
    const strip = (b: string) => b.replace(/-{2,}[\w-]+/g, '--boundary');
    expect(strip(bodies[1]!)).toBe(strip(bodies[0]!));
    expect(bodies[0]).toContain('name="image"; filename="a.png"');
    expect(bodies[0]).toContain('4k');
  });

  it('does not wait longer than maxRetryDelayMs: the 429 is thrown, typed, with its headers', async () => {
    const { fetchImpl, calls } = scripted([rateLimited('120')]);
    const t = new Transport({ baseUrl: 'http://h:1', fetch: fetchImpl, maxRetryDelayMs: 60_000 });
    const e = await t.request('GET', '/api/v1/account').catch((x: unknown) => x);
    expect(e).toBeInstanceOf(RateLimitError);
    expect(e).toMatchObject({ status: 429, code: 'rate_limited' });
    expect((e as RateLimitError).headers.get('retry-after')).toBe('120');
    expect(calls).toHaveLength(1);
  });

  it('gives up after maxRetries with the last error', async () => {
    const unavailable: Answer = {
      status: 503,
      headers: { 'retry-after': '0' },
      body: { error: { code: 'billing_unavailable', message: 'x' } },
    };
    const { fetchImpl, calls } = scripted([unavailable, unavailable, unavailable]);
    const t = new Transport({ baseUrl: 'http://h:1', fetch: fetchImpl, maxRetries: 2 });
    await expect(t.request('POST', '/api/v1/upscale', { repeatable: true })).rejects.toBeInstanceOf(ServiceUnavailableError);
    expect(calls).toHaveLength(3);
  });

  it('repeats a request after a network error only when it is safe to (GET, or a POST with an Idempotency-Key)', async () => {
    const post = scripted([new TypeError('fetch failed'), { status: 202, body: {} }]);
    await expect(new Transport({ baseUrl: 'http://h:1', fetch: post.fetchImpl }).request('POST', '/api/v1/upscale')).rejects.toThrow(
      'fetch failed',
    );
    expect(post.calls).toHaveLength(1);
    const get = scripted([new TypeError('fetch failed'), { status: 200, body: {} }]);
    await expect(new Transport({ baseUrl: 'http://h:1', fetch: get.fetchImpl }).request('GET', '/api/v1/jobs')).resolves.toMatchObject({
      status: 200,
    });
    expect(get.calls).toHaveLength(2);
  });

  it('does not retry other errors; a body that is not JSON still gives a typed error', async () => {
    const { fetchImpl, calls } = scripted([{ status: 500, body: 'oops' }]);
    const e = await new Transport({ baseUrl: 'http://h:1', fetch: fetchImpl }).request('GET', '/api/v1/jobs').catch((x: unknown) => x);
    expect(e).toBeInstanceOf(InternalServerError);
    expect(e).toMatchObject({ status: 500, code: 'internal_error' });
    expect(calls).toHaveLength(1);
  });
});

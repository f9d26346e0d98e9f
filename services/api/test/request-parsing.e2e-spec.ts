import { gzipSync } from 'node:zlib';
import { CheckedClient, expectError, newAccount, startJobsService, type JobsService, type TestAccount } from './jobs-harness';

/**
 * docs/api.md "Request bodies" and "Query parameters": a body or a query the service cannot read is a
 * clean 4xx in the usual error envelope, on every route that takes one, never a 500.
 */

let svc: JobsService;
let acct: TestAccount;
let operator: CheckedClient;
let anonymous: CheckedClient;
let endpointId: string;

beforeAll(async () => {
  svc = await startJobsService();
  acct = await newAccount(svc, {
    credits: 10,
    scopes: ['jobs:read', 'jobs:write', 'keys:read', 'keys:write', 'webhooks:read', 'webhooks:write'],
  });
  operator = acct.operator;
  anonymous = new CheckedClient(svc.apiUrl);
  const endpoint = await acct.client.post('/webhook_endpoints', { url: 'https://8.8.8.8/hook' });
  if (endpoint.status !== 201) throw new Error(`create endpoint: ${endpoint.status} ${endpoint.text}`);
  endpointId = endpoint.body.id;
});
afterAll(async () => {
  await svc?.shutdown();
});

/** Every route that takes a JSON body (the OpenAPI document's application/json request bodies), with a body it would accept. */
const JSON_ROUTES: Array<{ method: string; template: string; as: 'key' | 'operator'; body: unknown }> = [
  { method: 'POST', template: '/upscale', as: 'key', body: { image_url: 'https://8.8.8.8/cat.png' } },
  { method: 'POST', template: '/api_keys', as: 'key', body: { scopes: ['jobs:read'] } },
  { method: 'POST', template: '/webhook_endpoints', as: 'key', body: { url: 'https://8.8.8.8/hook' } },
  { method: 'POST', template: '/webhook_endpoints/{we}/rotate_secret', as: 'key', body: { overlap_seconds: 0 } },
  { method: 'POST', template: '/admin/accounts', as: 'operator', body: { name: 'x', credits: 1 } },
  { method: 'PATCH', template: '/admin/accounts/{id}', as: 'operator', body: { max_concurrent_jobs: 2 } },
  { method: 'POST', template: '/admin/accounts/{id}/credits', as: 'operator', body: { amount: 1 } },
  { method: 'POST', template: '/admin/accounts/{id}/keys', as: 'operator', body: { scopes: ['jobs:read'] } },
];
type JsonRoute = (typeof JSON_ROUTES)[number];
const routeName = (r: JsonRoute) => `${r.method} ${r.template}`;
const pathOf = (r: JsonRoute) => r.template.replace('{id}', acct.accountId).replace('{we}', endpointId);
const clientFor = (r: JsonRoute) => (r.as === 'key' ? acct.client : operator);

describe('JSON bodies (docs/api.md "Request bodies")', () => {
  test.each(JSON_ROUTES.map((r) => [routeName(r), r] as const))('%s with charset=latin1: 415 unsupported_charset', async (_, route) => {
    const res = await clientFor(route).request(route.method, pathOf(route), {
      raw: JSON.stringify(route.body),
      headers: { 'content-type': 'application/json; charset=latin1' },
    });
    expectError(res, 415, 'unsupported_charset');
    expect(res.body.error.message).toBe('JSON bodies must be UTF-8 (the Content-Type names charset latin1).');
  });

  test.each(JSON_ROUTES.map((r) => [routeName(r), r] as const))(
    '%s with Content-Encoding: compress: 415 unsupported_content_encoding',
    async (_, route) => {
      const res = await clientFor(route).request(route.method, pathOf(route), {
        raw: JSON.stringify(route.body),
        headers: { 'content-type': 'application/json', 'content-encoding': 'compress' },
      });
      expectError(res, 415, 'unsupported_content_encoding');
      expect(res.body.error.message).toBe('Content-Encoding compress is not supported: send the body as is, or gzip, deflate or br.');
    },
  );

  test.each(JSON_ROUTES.map((r) => [routeName(r), r] as const))(
    '%s with Content-Encoding: gzip but bytes that are not gzip: 400 invalid_request',
    async (_, route) => {
      const res = await clientFor(route).request(route.method, pathOf(route), {
        raw: JSON.stringify(route.body),
        headers: { 'content-type': 'application/json', 'content-encoding': 'gzip' },
      });
      expectError(res, 400, 'invalid_request');
      expect(res.body.error.message).toBe('The body could not be decoded as Content-Encoding gzip.');
    },
  );

  test.each(JSON_ROUTES.map((r) => [routeName(r), r] as const))(
    '%s with a JSON body over 100 kB: 413 payload_too_large naming the JSON body, not an image',
    async (_, route) => {
      const res = await clientFor(route).request(route.method, pathOf(route), {
        raw: JSON.stringify({ ...(route.body as object), padding: 'x'.repeat(110 * 1024) }),
        headers: { 'content-type': 'application/json' },
      });
      expectError(res, 413, 'payload_too_large');
      expect(res.body.error.message).toBe('The JSON body is larger than 100 kB (102400 bytes).');
    },
  );

  test('without an API key the charset is still refused first (415, with the address window in X-RateLimit-*)', async () => {
    const res = await anonymous.request('POST', '/webhook_endpoints', {
      raw: '{}',
      headers: { 'content-type': 'application/json; charset=latin1' },
    });
    expectError(res, 415, 'unsupported_charset');
    expect(res.headers.get('x-ratelimit-limit')).toMatch(/^\d+$/);
  });

  test('a gzip-compressed JSON body is decoded: POST /admin/accounts answers 201', async () => {
    const res = await operator.request('POST', '/admin/accounts', {
      raw: gzipSync(JSON.stringify({ name: 'gzipped', credits: 2 })),
      headers: { 'content-type': 'application/json', 'content-encoding': 'gzip' },
    });
    expect([res.status, res.body.name, res.body.balance]).toEqual([201, 'gzipped', 2]);
  });

  test('charset=utf-8 (any case) is accepted', async () => {
    const res = await operator.request('POST', '/admin/accounts', {
      raw: JSON.stringify({ name: 'utf8', credits: 1 }),
      headers: { 'content-type': 'application/json; charset=UTF-8' },
    });
    expect(res.status).toBe(201);
  });

  test('a form body with an unsupported charset: 415 unsupported_charset, not 500', async () => {
    const res = await acct.client.request('POST', '/upscale', {
      raw: 'image_url=https%3A%2F%2F8.8.8.8%2Fcat.png',
      headers: { 'content-type': 'application/x-www-form-urlencoded; charset=koi8-r' },
    });
    expectError(res, 415, 'unsupported_charset');
  });

  test('an upload over 10 MiB says the image is too large, with the limit in bytes', async () => {
    const res = await acct.client.upload(Buffer.alloc(10 * 1024 * 1024 + 1, 1));
    expectError(res, 413, 'payload_too_large');
    expect(res.body.error.message).toBe('The image is larger than 10 MiB (10,485,760 bytes).');
  });

  test('a file in a multipart field other than "image": 400 naming the right field and the one sent', async () => {
    const form = new FormData();
    form.append('file', new Blob([Buffer.from('x')], { type: 'image/png' }), 'photo.png');
    const res = await acct.client.request('POST', '/upscale', { form });
    expectError(res, 400, 'invalid_request');
    expect(res.body.error.message).toBe('The file goes in the multipart field "image" (this request sent one in "file").');
  });
});

describe('query parameters (docs/api.md "Query parameters"): one value each, never a list', () => {
  test.each([
    ['/jobs?status[]=queued', 'status'],
    ['/jobs?status=queued&status=failed', 'status'],
    ['/jobs?limit[]=1', 'limit'],
    ['/jobs?limit=1&limit=2', 'limit'],
    ['/jobs?limit[0]=1', 'limit'],
    ['/jobs?starting_after[]=job_0190a1b2c3d47e8f9a0b1c2d3e4f5a6b', 'starting_after'],
    ['/jobs/job_0190a1b2c3d47e8f9a0b1c2d3e4f5a6b/result?redirect[]=false', 'redirect'],
    ['/jobs/job_0190a1b2c3d47e8f9a0b1c2d3e4f5a6b/result?asset=result&asset=source', 'asset'],
    ['/jobs/job_0190a1b2c3d47e8f9a0b1c2d3e4f5a6b/result?asset[]=source', 'asset'],
  ])('GET %s: 400 invalid_request naming %s', async (path, name) => {
    const res = await acct.client.get(path);
    expectError(res, 400, 'invalid_request');
    expect(res.body.error.message).toBe(`${name} must be given once, as a single value.`);
  });

  test.each([['limit[]=1'], ['limit=1&limit=2']])(
    'GET /webhook_endpoints/{id}/deliveries?%s: 400 invalid_request naming limit',
    async (query) => {
      const res = await acct.client.get(`/webhook_endpoints/${endpointId}/deliveries?${query}`);
      expectError(res, 400, 'invalid_request');
      expect(res.body.error.message).toBe('limit must be given once, as a single value.');
    },
  );

  test('single values are still read, and parameters the route does not take are ignored', async () => {
    const answers = [
      (await acct.client.get('/jobs?limit=1&status=queued')).status,
      (await acct.client.get('/jobs?utm_source=x&utm_source=y')).status,
      (await acct.client.get(`/webhook_endpoints/${endpointId}/deliveries?limit=5`)).status,
    ];
    expect(answers).toEqual([200, 200, 200]);
  });
});

import Ajv2020 from 'ajv/dist/2020';
import addFormats from 'ajv-formats';
import { gradientImage, type ApiResponse } from '@upscaler/testing';
import { openApiDocument } from '../src/openapi/openapi.document';
import { isFinal, newAccount, newKey, useJobsService, templateOf, waitForJob } from './jobs-harness';
import { padPngTo } from './jobs-images';

/**
 * GET /api/v1/openapi.json is an OpenAPI 3.1 document, and the answers the job endpoints really
 * give validate against the served document (every other suite checks its answers against the
 * same document, built from the source: here it is shown to be the one served).
 */

let served: Record<string, any>;

const jobs = useJobsService();
beforeAll(async () => {
  const res = await fetch(`${jobs.svc.apiUrl}/openapi.json`);
  expect(res.status).toBe(200);
  expect(res.headers.get('content-type')).toMatch(/^application\/json/);
  served = (await res.json()) as Record<string, any>;
});

test('GET /api/v1/openapi.json needs no key and is an OpenAPI 3.1 document', () => {
  expect(served.openapi).toBe('3.1.0');
  expect(Object.keys(served.paths)).toEqual(
    expect.arrayContaining(['/api/v1/upscale', '/api/v1/jobs', '/api/v1/jobs/{id}', '/api/v1/jobs/{id}/result']),
  );
});

test('it is valid by the OAS 3.1 meta-schema', () => {
  // eslint-disable-next-line @typescript-eslint/no-require-imports
  const meta = require('@seriousme/openapi-schema-validator/schemas/v3.1/schema.json');
  const ajv = new Ajv2020({ strict: false, allErrors: true });
  addFormats(ajv);
  ajv.addFormat('media-range', true);
  const validate = ajv.compile(meta);
  const valid = validate(served);
  expect(validate.errors ?? []).toEqual([]);
  expect(valid).toBe(true);
});

test('the served document is the one the suites check against', () => {
  expect(served).toEqual(JSON.parse(JSON.stringify(openApiDocument())));
});

test('the answers of the job endpoints, success and error alike, validate against the served document', async () => {
  const ajv = new Ajv2020({ strict: false, allErrors: true });
  addFormats(ajv);
  ajv.addSchema({ ...served, $id: 'urn:upscaler:served' });
  const problems: string[] = [];
  const seen: string[] = [];
  const check = (method: string, path: string, res: ApiResponse) => {
    const template = templateOf(path);
    seen.push(`${method} ${template} ${res.status}`);
    const response = served.paths[template]?.[method.toLowerCase()]?.responses?.[String(res.status)];
    if (!response) return void problems.push(`${method} ${template}: ${res.status} not documented`);
    if (!response.content?.['application/json']) {
      if (res.text.length > 0) problems.push(`${method} ${template} ${res.status}: body not documented`);
      return;
    }
    const pointer = ['paths', template, method.toLowerCase(), 'responses', String(res.status), 'content', 'application/json', 'schema']
      .map((s) => encodeURIComponent(s.replace(/~/g, '~0').replace(/\//g, '~1')))
      .join('/');
    const validate = ajv.compile({ $ref: `urn:upscaler:served#/${pointer}` });
    if (!validate(res.body)) problems.push(`${method} ${template} ${res.status}: ${ajv.errorsText(validate.errors)}`);
  };

  const acct = await newAccount(jobs.svc, { credits: 11 });
  const c = acct.client;
  const image = await gradientImage(16, 16);
  const call = async (method: string, path: string, run: () => Promise<ApiResponse>) => {
    const res = await run();
    check(method, path, res);
    return res;
  };

  const created = await call('POST', '/upscale', () => c.upload(image, {}, { headers: { 'Idempotency-Key': 'openapi-1' } }));
  await call('POST', '/upscale', () => c.upload(image, {}, { headers: { 'Idempotency-Key': 'openapi-1' } })); // 200 replay
  const id = created.body.id;
  await waitForJob(c, id, isFinal);
  await call('GET', `/jobs/${id}`, () => c.get(`/jobs/${id}`));
  await call('GET', '/jobs', () => c.get('/jobs?limit=1'));
  await call('GET', `/jobs/${id}/result`, () => c.get(`/jobs/${id}/result`)); // 302
  await call('GET', `/jobs/${id}/result`, () => c.get(`/jobs/${id}/result?redirect=false`));
  await call('DELETE', `/jobs/${id}`, () => c.delete(`/jobs/${id}`)); // 409 conflict
  await call('POST', '/upscale', () => c.upload(image, { target: '4k' })); // 402: 8 left, 9 needed
  const other = (await c.upload(await gradientImage(512, 512), { target: '2k' })).body.id;
  await call('DELETE', `/jobs/${other}`, () => c.delete(`/jobs/${other}`)); // 200 cancel view
  await call('GET', `/jobs/${other}/result`, () => c.get(`/jobs/${other}/result`)); // 409 result_not_ready
  await call('GET', '/jobs/job_0190a1b2c3d47e8f9a0b1c2d3e4f5a6b', () => c.get('/jobs/job_0190a1b2c3d47e8f9a0b1c2d3e4f5a6b')); // 404
  await call('GET', '/jobs', () => c.get('/jobs?limit=0')); // 400
  await call('POST', '/upscale', () => c.upload(image, { target: '9k' })); // 400
  await call('POST', '/upscale', () => c.upload(image, { target: '4k' }, { headers: { 'Idempotency-Key': 'openapi-1' } })); // 400 reused
  await call('POST', '/upscale', () => c.upload(Buffer.from('text'))); // 415
  await call('POST', '/upscale', () => c.upload(padPngTo(image, 10 * 1024 * 1024 + 1))); // 413
  await call('GET', '/jobs', () => c.withToken('usk_not_a_real_key_at_all_000000000').get('/jobs')); // 401
  const reader = c.withToken((await newKey(acct.operator, acct.accountId, { scopes: ['jobs:read'] })).key);
  await call('POST', '/upscale', () => reader.upload(image)); // 403
  const slow = c.withToken((await newKey(acct.operator, acct.accountId, { rateLimitPerMinute: 1 })).key);
  await slow.get('/jobs');
  await call('GET', '/jobs', () => slow.get('/jobs')); // 429 (or 200 if a new window began)

  expect(problems).toEqual([]);
  expect(seen).toEqual(
    expect.arrayContaining([
      'POST /api/v1/upscale 202',
      'POST /api/v1/upscale 200',
      'POST /api/v1/upscale 400',
      'POST /api/v1/upscale 402',
      'POST /api/v1/upscale 403',
      'POST /api/v1/upscale 413',
      'POST /api/v1/upscale 415',
      'GET /api/v1/jobs 200',
      'GET /api/v1/jobs 400',
      'GET /api/v1/jobs 401',
      'GET /api/v1/jobs/{id} 200',
      'GET /api/v1/jobs/{id} 404',
      'GET /api/v1/jobs/{id}/result 302',
      'GET /api/v1/jobs/{id}/result 200',
      'GET /api/v1/jobs/{id}/result 409',
      'DELETE /api/v1/jobs/{id} 200',
      'DELETE /api/v1/jobs/{id} 409',
    ]),
  );
});

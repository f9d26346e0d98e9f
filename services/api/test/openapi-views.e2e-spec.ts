import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { gradientImage } from '@upscaler/testing';
import type { z } from 'zod';
import { AccountSchema, AdminAccountSchema } from '@upscaler/billing';
import { ApiKeyCreatedSchema, ApiKeyListSchema, ApiKeySchema } from '@upscaler/api-keys';
import { JobCancelSchema, JobCreateSchema, JobListSchema, JobSchema, ResultLinkSchema } from '@upscaler/jobs';
import { ErrorSchema } from '@upscaler/http-api';
import { DeliveryAttemptListSchema, WebhookEndpointCreatedSchema, WebhookEndpointListSchema } from '@upscaler/webhooks';
import { isFinal, newAccount, newKey, startJobsService, waitForJob, type JobsService } from './jobs-harness';

/**
 * The view schemas that generate the OpenAPI document describe what real routes answer: each answer
 * parses with its schema, and names no field the schema leaves out (an undocumented field would mean a
 * view changed without its schema). GET /api/v1/openapi.json serves docs/openapi.json.
 */

let svc: JobsService;
beforeAll(async () => {
  svc = await startJobsService();
});
afterAll(async () => {
  await svc?.shutdown();
});

/** Parses `body` with `schema` and lists the fields it has that the schema does not know, at any depth. */
function problemsOf(schema: z.ZodTypeAny, body: unknown): string[] {
  const parsed = schema.safeParse(body);
  if (!parsed.success) return parsed.error.issues.map((i) => `${i.path.join('.')}: ${i.message}`);
  const unknown: string[] = [];
  const walk = (raw: unknown, kept: unknown, at: string): void => {
    if (Array.isArray(raw) && Array.isArray(kept)) raw.forEach((r, i) => walk(r, kept[i], `${at}[${i}]`));
    else if (raw && typeof raw === 'object' && kept && typeof kept === 'object' && !(kept instanceof URL)) {
      for (const [k, v] of Object.entries(raw)) {
        if (!(k in kept)) unknown.push(`${at}${k}: not in the schema`);
        else walk(v, (kept as Record<string, unknown>)[k], `${at}${k}.`);
      }
    }
  };
  walk(body, parsed.data, '');
  return unknown;
}

test('GET /api/v1/openapi.json serves docs/openapi.json', async () => {
  const res = await fetch(`${svc.apiUrl}/openapi.json`);
  expect(res.status).toBe(200);
  const committed = readFileSync(join(__dirname, '../../../docs/openapi.json'), 'utf8');
  expect(await res.json()).toEqual(JSON.parse(committed));
});

test('answers of the job, account, key and webhook routes parse with their view schemas', async () => {
  const acct = await newAccount(svc, {
    credits: 20,
    scopes: ['jobs:read', 'jobs:write', 'keys:read', 'keys:write', 'webhooks:read', 'webhooks:write'],
  });
  const c = acct.client;
  const checks: Array<[string, z.ZodTypeAny, unknown]> = [];

  const created = await c.upload(await gradientImage(16, 16), { target: '2k' });
  expect(created.status).toBe(202);
  checks.push(['POST /upscale 202', JobCreateSchema, created.body]);
  await waitForJob(c, created.body.id, isFinal);
  checks.push(['GET /jobs/{id}', JobSchema, (await c.get(`/jobs/${created.body.id}`)).body]);
  checks.push(['GET /jobs', JobListSchema, (await c.get('/jobs?limit=5')).body]);
  checks.push([
    'GET /jobs/{id}/result?redirect=false',
    ResultLinkSchema,
    (await c.get(`/jobs/${created.body.id}/result?redirect=false`)).body,
  ]);
  const other = await c.upload(await gradientImage(16, 16), { target: '2k' });
  const cancelled = await c.delete(`/jobs/${other.body.id}`);
  if (cancelled.status === 200) checks.push(['DELETE /jobs/{id}', JobCancelSchema, cancelled.body]);
  checks.push(['GET /account', AccountSchema, (await c.get('/account')).body]);
  checks.push(['GET /admin/accounts/{id}', AdminAccountSchema, (await acct.operator.get(`/admin/accounts/${acct.accountId}`)).body]);

  const key = await c.post('/api_keys', { name: 'views', scopes: ['jobs:read'] });
  checks.push(['POST /api_keys', ApiKeyCreatedSchema, key.body]);
  checks.push(['DELETE /api_keys/{id}', ApiKeySchema, (await c.delete(`/api_keys/${key.body.id}`)).body]);
  checks.push(['GET /api_keys', ApiKeyListSchema, (await c.get('/api_keys')).body]);

  const endpoint = await c.post('/webhook_endpoints', { url: 'https://example.com/hooks/upscaler', description: 'views' });
  expect(endpoint.status).toBe(201);
  checks.push(['POST /webhook_endpoints', WebhookEndpointCreatedSchema, endpoint.body]);
  checks.push(['GET /webhook_endpoints', WebhookEndpointListSchema, (await c.get('/webhook_endpoints')).body]);
  checks.push([
    'GET /webhook_endpoints/{id}/deliveries',
    DeliveryAttemptListSchema,
    (await c.get(`/webhook_endpoints/${endpoint.body.id}/deliveries`)).body,
  ]);

  const reader = c.withToken((await newKey(acct.operator, acct.accountId, { scopes: ['jobs:read'] })).key);
  checks.push(['POST /upscale 403', ErrorSchema, (await reader.upload(await gradientImage(16, 16))).body]);
  checks.push(['GET /jobs?limit=0 400', ErrorSchema, (await c.get('/jobs?limit=0')).body]);

  expect(checks.map(([what, schema, body]) => [what, problemsOf(schema, body)])).toEqual(checks.map(([what]) => [what, []]));
});

import { randomUUID } from 'node:crypto';
import { Webhook } from 'standardwebhooks';
import {
  ApiClient,
  createAccountWithKey,
  gradientImage,
  registerEndpoint,
  truncatedPng,
  waitFor,
  type ReceivedRequest,
} from '@upscaler/testing';
import { ALL_SCOPES, useWebhooksService, submit, finalAttempts, expectedSignature } from './webhooks-harness';

/**
 * Webhooks end to end (docs/design.md §4 "Webhooks", docs/design.md §6 "webhook endpoint"): a real standalone delivers
 * signed POSTs to a loopback HTTPS receiver whose certificate comes from a test CA the child trusts
 * through NODE_EXTRA_CA_CERTS. Retries use a short schedule (200, 400, 800 ms).
 */

/** Long enough that everything else in a test happens well within one held attempt. */
const WEBHOOK_TIMEOUT_MS = 8_000;

const hooks = useWebhooksService({ UPSCALE_WEBHOOK_TIMEOUT_MS: String(WEBHOOK_TIMEOUT_MS) });
const hits = (path: string) => hooks.receiver.hits(path);

/** A fresh receiver path and an endpoint registered for it. */
const register = (client: ApiClient, body: Record<string, unknown> = {}) => registerEndpoint(client, hooks.receiver, body);

/** Waits until the endpoint's delivery log shows a final outcome for `jobId`, and returns the log. */
const finalDeliveryLog = (client: ApiClient, endpointId: string, jobId: string) =>
  finalAttempts(client, endpointId, (a) => a.job_id === jobId, `a final delivery of ${jobId} to ${endpointId}`);

function expectSigned(hit: ReceivedRequest, secret: string): void {
  const { 'webhook-id': id, 'webhook-timestamp': ts, 'webhook-signature': sig } = hit.headers;
  expect(id).toMatch(/^dlv_[0-9a-f]{32}$/);
  expect(ts).toMatch(/^\d+$/);
  expect(sig.split(' ')).toContain(expectedSignature(secret, id, ts, hit.body));
  expect(new Webhook(secret).verify(hit.body, hit.headers)).toEqual(JSON.parse(hit.body));
  // Another secret does not verify.
  expect(() => new Webhook(`whsec_${Buffer.alloc(24, 7).toString('base64')}`).verify(hit.body, hit.headers)).toThrow();
}

const account = (scopes = ALL_SCOPES, credits = 100) =>
  createAccountWithKey(hooks.svc.apiUrl, hooks.svc.operatorToken, { scopes, credits });

describe('registering an endpoint', () => {
  it('answers 201 with the secret once; GET and the list never show it', async () => {
    const { client } = await account();
    const url = `${hooks.receiver.url}/hook/${randomUUID()}`;
    const created = await client.post('/webhook_endpoints', { url, events: ['job.succeeded', 'job.failed'], description: 'mine' });
    expect(created.status).toBe(201);
    const { id, created_at, secret, ...rest } = created.body;
    expect(id).toMatch(/^we_/);
    expect(secret).toMatch(/^whsec_[A-Za-z0-9+/]{32}$/);
    expect(Buffer.from(secret.slice(6), 'base64')).toHaveLength(24);
    expect(Number.isNaN(Date.parse(created_at))).toBe(false);
    expect(rest).toEqual({
      object: 'webhook_endpoint',
      url,
      events: ['job.succeeded', 'job.failed'],
      description: 'mine',
      status: 'enabled',
      disabled_reason: null,
      secret_rotated_at: null,
      previous_secret_expires_at: null,
    });

    const got = await client.get(`/webhook_endpoints/${id}`);
    expect(got.status).toBe(200);
    expect(got.body).toEqual({ id, created_at, ...rest });
    expect(got.text).not.toContain(secret.slice(6));

    const list = await client.get('/webhook_endpoints');
    expect(list.status).toBe(200);
    expect(list.body).toEqual({ object: 'list', data: [{ id, created_at, ...rest }], has_more: false, next_cursor: null });
    expect(list.text).not.toContain(secret.slice(6));
  });

  it('without events subscribes to all three event types', async () => {
    const { client } = await account();
    const { endpoint } = await register(client);
    expect(endpoint.events).toEqual(['job.succeeded', 'job.failed', 'job.cancelled']);
  });

  it('refuses http://, credentials in the URL, an unknown event type and a missing url with 400', async () => {
    const { client } = await account();
    const port = hooks.receiver.port;
    for (const body of [
      { url: `http://127.0.0.1:${port}/hook` },
      { url: `https://user:pw@127.0.0.1:${port}/hook` },
      { url: 'not a url' },
      { url: `${hooks.receiver.url}/hook`, events: ['job.started'] },
      { url: `${hooks.receiver.url}/hook`, events: [] },
      {},
    ]) {
      const r = await client.post('/webhook_endpoints', body);
      expect([JSON.stringify(body), r.status, r.body.error.code]).toEqual([JSON.stringify(body), 400, 'invalid_request']);
    }
    expect((await client.get('/webhook_endpoints')).body.data).toEqual([]);
  });

  it('enforces webhooks:write and webhooks:read (403 forbidden)', async () => {
    const owner = await account();
    const { endpoint } = await register(owner.client);
    const readOnly = (await account(['webhooks:read'])).client;
    const writeOnly = (await account(['webhooks:write'])).client;
    const jobsOnly = (await account(['jobs:read', 'jobs:write'])).client;
    const url = `${hooks.receiver.url}/hook/x`;

    for (const c of [readOnly, jobsOnly]) {
      const r = await c.post('/webhook_endpoints', { url });
      expect([r.status, r.body.error.code]).toEqual([403, 'forbidden']);
      const d = await c.delete(`/webhook_endpoints/${endpoint.id}`);
      expect([d.status, d.body.error.code]).toEqual([403, 'forbidden']);
    }
    for (const c of [writeOnly, jobsOnly]) {
      for (const path of ['/webhook_endpoints', `/webhook_endpoints/${endpoint.id}`, `/webhook_endpoints/${endpoint.id}/deliveries`]) {
        const r = await c.get(path);
        expect([path, r.status, r.body.error.code]).toEqual([path, 403, 'forbidden']);
      }
    }
    // The read-only key may read (its own account: an empty list), the write-only key may create.
    expect((await readOnly.get('/webhook_endpoints')).status).toBe(200);
    expect((await writeOnly.post('/webhook_endpoints', { url })).status).toBe(201);
    // Nothing above touched the owner's endpoint.
    expect((await owner.client.get(`/webhook_endpoints/${endpoint.id}`)).body.status).toBe('enabled');
  });

  it("another account's endpoint is 404 not_found for GET, deliveries and DELETE", async () => {
    const owner = await account();
    const other = await account();
    const { endpoint } = await register(owner.client);
    for (const r of [
      await other.client.get(`/webhook_endpoints/${endpoint.id}`),
      await other.client.get(`/webhook_endpoints/${endpoint.id}/deliveries`),
      await other.client.delete(`/webhook_endpoints/${endpoint.id}`),
    ]) {
      expect([r.status, r.body.error.code]).toEqual([404, 'not_found']);
    }
    expect((await other.client.get('/webhook_endpoints')).body.data).toEqual([]);
    expect((await owner.client.get(`/webhook_endpoints/${endpoint.id}`)).body.status).toBe('enabled');
    const unknown = await owner.client.get('/webhook_endpoints/we_00000000000000000000000000000000');
    expect([unknown.status, unknown.body.error.code]).toEqual([404, 'not_found']);
  });
});

describe('deliveries', () => {
  it('a succeeded job: exactly one signed job.succeeded delivery whose data is the retrieve view', async () => {
    const { client } = await account();
    const { path, endpoint } = await register(client);
    const jobId = await submit(client, await gradientImage(16, 16), { target: '2k', format: 'webp' });
    const job = await client.waitForFinal(jobId);
    expect(job.status).toBe('succeeded');
    const log = await finalDeliveryLog(client, endpoint.id, jobId);

    const got = hits(path);
    expect(got).toHaveLength(1);
    const [hit] = got;
    expect(hit.headers['content-type']).toBe('application/json');
    expectSigned(hit, endpoint.secret);
    const payload = JSON.parse(hit.body);
    expect(Object.keys(payload).sort()).toEqual(['data', 'timestamp', 'type']);
    expect(payload.type).toBe('job.succeeded');
    expect(new Date(payload.timestamp).toISOString()).toBe(payload.timestamp);
    expect(payload.data).toEqual((await client.get(`/jobs/${jobId}`)).body);
    expect(payload.data).toMatchObject({ id: jobId, status: 'succeeded', target: '2k', credits: 3, error: null });

    expect(log).toEqual([
      {
        id: `${hit.headers['webhook-id']}_1`,
        object: 'webhook_delivery_attempt',
        delivery_id: hit.headers['webhook-id'],
        event_type: 'job.succeeded',
        job_id: jobId,
        message_id: hit.headers['webhook-id'],
        redelivery_of: null,
        attempt: 1,
        status_code: 200,
        error: null,
        outcome: 'succeeded',
        attempted_at: log[0].attempted_at,
        next_attempt_at: null,
      },
    ]);
  });

  it('a corrupt image: one signed job.failed delivery carrying the error', async () => {
    const { client } = await account();
    const { path, endpoint } = await register(client);
    const jobId = await submit(client, await truncatedPng());
    const job = await client.waitForFinal(jobId);
    expect([job.status, job.error?.code]).toEqual(['failed', 'corrupt_image']);
    const log = await finalDeliveryLog(client, endpoint.id, jobId);
    expect(log.map((a) => [a.event_type, a.status_code, a.outcome])).toEqual([['job.failed', 200, 'succeeded']]);

    const got = hits(path);
    expect(got).toHaveLength(1);
    expectSigned(got[0], endpoint.secret);
    const payload = JSON.parse(got[0].body);
    expect(payload.type).toBe('job.failed');
    expect(payload.data).toEqual((await client.get(`/jobs/${jobId}`)).body);
    expect(payload.data.error.code).toBe('corrupt_image');
  });

  it('a cancelled job: one signed job.cancelled delivery', async () => {
    const { client } = await account();
    const { path, endpoint } = await register(client);
    // Large enough (256x256 at 4x) that the cancel lands while the job is queued or processing.
    const jobId = await submit(client, await gradientImage(256, 256), { target: '4k' });
    const cancel = await client.delete(`/jobs/${jobId}`);
    expect([cancel.status, cancel.body.status]).toEqual([200, 'cancelled']);
    const log = await finalDeliveryLog(client, endpoint.id, jobId);
    expect(log.map((a) => [a.event_type, a.status_code, a.outcome])).toEqual([['job.cancelled', 200, 'succeeded']]);

    const got = hits(path);
    expect(got).toHaveLength(1);
    expectSigned(got[0], endpoint.secret);
    const payload = JSON.parse(got[0].body);
    expect(payload.type).toBe('job.cancelled');
    expect(payload.data).toEqual((await client.get(`/jobs/${jobId}`)).body);
    expect(payload.data.status).toBe('cancelled');
  });

  it('an endpoint subscribed only to job.failed receives nothing for a success', async () => {
    const { client } = await account();
    const control = await register(client);
    const failedOnly = await register(client, { events: ['job.failed'] });
    expect(failedOnly.endpoint.events).toEqual(['job.failed']);
    const jobId = await submit(client, await gradientImage(16, 16));
    expect((await client.waitForFinal(jobId)).status).toBe('succeeded');
    // The control endpoint's delivery was scheduled from the same job event: once it is done, the
    // scheduler has decided for every endpoint of the account.
    await finalDeliveryLog(client, control.endpoint.id, jobId);
    expect(hits(control.path)).toHaveLength(1);
    expect(hits(failedOnly.path)).toHaveLength(0);
    expect((await client.get(`/webhook_endpoints/${failedOnly.endpoint.id}/deliveries`)).body.data).toEqual([]);
    // ... and does receive a failure.
    const failing = await submit(client, await truncatedPng());
    expect((await client.waitForFinal(failing)).status).toBe('failed');
    const log = await finalDeliveryLog(client, failedOnly.endpoint.id, failing);
    expect(log.map((a) => [a.event_type, a.outcome])).toEqual([['job.failed', 'succeeded']]);
    expect(hits(failedOnly.path).map((h) => JSON.parse(h.body).type)).toEqual(['job.failed']);
  });

  it('500, 500, 200: three attempts with one webhook-id, and the log shows each with its next retry', async () => {
    const { client } = await account();
    const { path, endpoint } = await register(client);
    hooks.receiver.plan(path, (n) => (n < 2 ? 500 : 200));
    const jobId = await submit(client, await gradientImage(16, 16));
    expect((await client.waitForFinal(jobId)).status).toBe('succeeded');
    const log = await finalDeliveryLog(client, endpoint.id, jobId);

    const got = hits(path);
    expect(got).toHaveLength(3);
    const ids = new Set(got.map((h) => h.headers['webhook-id']));
    expect(ids.size).toBe(1);
    // The same body every time, each attempt signed anew.
    expect(new Set(got.map((h) => h.body)).size).toBe(1);
    for (const h of got) expectSigned(h, endpoint.secret);

    const deliveryId = got[0].headers['webhook-id'];
    expect(log.map((a) => [a.id, a.delivery_id, a.attempt, a.status_code, a.error, a.outcome, a.next_attempt_at === null])).toEqual([
      [`${deliveryId}_3`, deliveryId, 3, 200, null, 'succeeded', true],
      [`${deliveryId}_2`, deliveryId, 2, 500, 'HTTP 500', 'retrying', false],
      [`${deliveryId}_1`, deliveryId, 1, 500, 'HTTP 500', 'retrying', false],
    ]);
    // Each retry time is the schedule's wait (±10 % jitter) after its attempt, and the next attempt
    // was not made before it.
    const [third, second, first] = log;
    const wait = (a: any) => Date.parse(a.next_attempt_at) - Date.parse(a.attempted_at);
    expect([wait(first) >= 180 && wait(first) <= 220, wait(second) >= 360 && wait(second) <= 440]).toEqual([true, true]);
    expect(Date.parse(second.attempted_at)).toBeGreaterThanOrEqual(Date.parse(first.next_attempt_at));
    expect(Date.parse(third.attempted_at)).toBeGreaterThanOrEqual(Date.parse(second.next_attempt_at));
  });

  it('an endpoint failing every attempt: the delivery is abandoned after the schedule', async () => {
    const { client } = await account();
    const { path, endpoint } = await register(client);
    hooks.receiver.plan(path, () => 503);
    const jobId = await submit(client, await gradientImage(16, 16));
    await client.waitForFinal(jobId);
    const log = await finalDeliveryLog(client, endpoint.id, jobId);
    expect(log.map((a) => [a.attempt, a.status_code, a.outcome])).toEqual([
      [4, 503, 'abandoned'],
      [3, 503, 'retrying'],
      [2, 503, 'retrying'],
      [1, 503, 'retrying'],
    ]);
    expect(hits(path)).toHaveLength(4);
    // A failing receiver is not disabled: only 410 does that.
    expect((await client.get(`/webhook_endpoints/${endpoint.id}`)).body.status).toBe('enabled');
  });

  it('a 410 answer disables the endpoint; later jobs are not delivered to it', async () => {
    const { client } = await account();
    const gone = await register(client);
    hooks.receiver.plan(gone.path, () => 410);
    const first = await submit(client, await gradientImage(16, 16));
    await client.waitForFinal(first);
    const log = await finalDeliveryLog(client, gone.endpoint.id, first);
    expect(log.map((a) => [a.attempt, a.status_code, a.outcome, a.next_attempt_at])).toEqual([[1, 410, 'endpoint_gone', null]]);
    const disabled = await waitFor('the endpoint to be disabled', async () => {
      const r = await client.get(`/webhook_endpoints/${gone.endpoint.id}`);
      return r.body.status === 'disabled' ? r.body : undefined;
    });
    expect(disabled.status).toBe('disabled');
    expect(hits(gone.path)).toHaveLength(1);

    const control = await register(client);
    const second = await submit(client, await gradientImage(16, 16));
    await client.waitForFinal(second);
    await finalDeliveryLog(client, control.endpoint.id, second);
    expect(hits(gone.path)).toHaveLength(1);
    expect((await client.get(`/webhook_endpoints/${gone.endpoint.id}/deliveries`)).body.data.map((a: any) => a.job_id)).toEqual([first]);
  });

  it('DELETE disables the endpoint (200, status disabled); later jobs are not delivered to it', async () => {
    const { client } = await account();
    const deleted = await register(client);
    const del = await client.delete(`/webhook_endpoints/${deleted.endpoint.id}`);
    expect(del.status).toBe(200);
    expect(del.body).toMatchObject({ id: deleted.endpoint.id, object: 'webhook_endpoint', status: 'disabled' });
    expect(del.body.secret).toBeUndefined();
    // Deleting again changes nothing.
    const again = await client.delete(`/webhook_endpoints/${deleted.endpoint.id}`);
    expect([again.status, again.body.status]).toEqual([200, 'disabled']);
    expect((await client.get(`/webhook_endpoints/${deleted.endpoint.id}`)).body.status).toBe('disabled');

    const control = await register(client);
    const jobId = await submit(client, await gradientImage(16, 16));
    await client.waitForFinal(jobId);
    await finalDeliveryLog(client, control.endpoint.id, jobId);
    expect(hits(deleted.path)).toHaveLength(0);
    expect((await client.get(`/webhook_endpoints/${deleted.endpoint.id}/deliveries`)).body.data).toEqual([]);
  });

  it("each account's endpoints get only that account's jobs", async () => {
    const a = await account();
    const b = await account();
    const hookA = await register(a.client);
    const hookB = await register(b.client);
    const jobA = await submit(a.client, await gradientImage(16, 16));
    await a.client.waitForFinal(jobA);
    await finalDeliveryLog(a.client, hookA.endpoint.id, jobA);
    expect(hits(hookA.path)).toHaveLength(1);
    expect(hits(hookB.path)).toHaveLength(0);
    expect((await b.client.get(`/webhook_endpoints/${hookB.endpoint.id}/deliveries`)).body.data).toEqual([]);
  });

  it('DELETE while a delivery is retrying: the next attempt is abandoned and nothing more is sent', async () => {
    const { client } = await account();
    const { path, endpoint } = await register(client);
    // The receiver deletes its endpoint while the first attempt is in flight, then answers 500.
    hooks.receiver.onArrival(path, async (n) => {
      if (n === 0) expect((await client.delete(`/webhook_endpoints/${endpoint.id}`)).status).toBe(200);
    });
    hooks.receiver.plan(path, () => 500);
    const jobId = await submit(client, await gradientImage(16, 16));
    await client.waitForFinal(jobId);
    const log = await finalDeliveryLog(client, endpoint.id, jobId);
    expect(log.map((a) => [a.attempt, a.status_code, a.error, a.outcome, a.next_attempt_at === null])).toEqual([
      [2, null, 'endpoint disabled', 'abandoned', true],
      [1, 500, 'HTTP 500', 'retrying', false],
    ]);
    expect(hits(path)).toHaveLength(1);
  });

  it("a receiver that never answers times out without holding up another account's deliveries", async () => {
    const slow = await account();
    const fast = await account();
    const hang = await register(slow.client);
    const quick = await register(fast.client);
    hooks.receiver.plan(hang.path, (n) => (n === 0 ? 'hold' : 200));
    let slowAttemptOpenWhenQuickArrived: boolean | undefined;
    hooks.receiver.onArrival(quick.path, () => {
      slowAttemptOpenWhenQuickArrived = hooks.receiver.held.some((h) => h.path === hang.path && !h.closed);
    });

    const slowJob = await submit(slow.client, await gradientImage(16, 16));
    await slow.client.waitForFinal(slowJob);
    await waitFor('the slow endpoint to receive its first attempt', async () => hits(hang.path).length === 1);
    const quickJob = await submit(fast.client, await gradientImage(16, 16));
    await fast.client.waitForFinal(quickJob);
    await finalDeliveryLog(fast.client, quick.endpoint.id, quickJob);
    expect(slowAttemptOpenWhenQuickArrived).toBe(true);

    const log = await finalDeliveryLog(slow.client, hang.endpoint.id, slowJob);
    expect(log.map((a) => [a.attempt, a.status_code, a.error, a.outcome])).toEqual([
      [2, 200, null, 'succeeded'],
      [1, null, `timed out after ${WEBHOOK_TIMEOUT_MS} ms`, 'retrying'],
    ]);
    expect(hits(hang.path)).toHaveLength(2);
  });

  it('the delivery log pages by delivery: limit 1 of two deliveries has_more; a bad limit is 400', async () => {
    const { client } = await account();
    const { endpoint } = await register(client);
    const jobs = [await submit(client, await gradientImage(16, 16)), await submit(client, await gradientImage(16, 16))];
    for (const id of jobs) {
      await client.waitForFinal(id);
      await finalDeliveryLog(client, endpoint.id, id);
    }
    const all = await client.get(`/webhook_endpoints/${endpoint.id}/deliveries`);
    expect([all.body.data.map((a: any) => a.job_id).sort(), all.body.has_more, all.body.next_cursor]).toEqual([
      [...jobs].sort(),
      false,
      null,
    ]);
    const one = await client.get(`/webhook_endpoints/${endpoint.id}/deliveries?limit=1`);
    expect([one.status, one.body.data.length, one.body.has_more]).toEqual([200, 1, true]);
    for (const limit of ['0', '101', 'abc', '1.5']) {
      const r = await client.get(`/webhook_endpoints/${endpoint.id}/deliveries?limit=${limit}`);
      expect([limit, r.status, r.body.error.code]).toEqual([limit, 400, 'invalid_request']);
    }
  });
});

import { Webhook } from 'standardwebhooks';
import { ApiClient, createAccountWithKey, gradientImage, registerEndpoint, waitFor, type ReceivedRequest } from '@upscaler/testing';
import { ALL_SCOPES, RETRY_SCHEDULE_MS, useWebhooksService, submit, finalAttempts, expectedSignature } from './webhooks-harness';

/**
 * Webhook ergonomics end to end (docs/api.md "Webhooks", docs/design.md §4): secret rotation
 * with an overlap, re-enabling an endpoint a 410 disabled, the test event and re-delivery, against a real
 * service delivering to a loopback HTTPS receiver (test CA trusted through NODE_EXTRA_CA_CERTS). Retries use a
 * short schedule (200, 400, 800 ms) and an account may have 3 enabled endpoints.
 */

const MAX_ENDPOINTS = 3;
const DLV_ID = /^dlv_[0-9a-f]{32}$/;

const hooks = useWebhooksService({ UPSCALE_MAX_WEBHOOK_ENDPOINTS_PER_ACCOUNT: String(MAX_ENDPOINTS) });
const hits = (path: string) => hooks.receiver.hits(path);
const nthHit = (path: string, n: number) => hooks.receiver.nthHit(path, n);

const register = (client: ApiClient, body: Record<string, unknown> = {}) => registerEndpoint(client, hooks.receiver, body);

const submitTiny = async (client: ApiClient) => submit(client, await gradientImage(16, 16));

/** The attempts of one delivery in the endpoint's log, once it reached a final outcome. */
const finalAttemptsOf = (client: ApiClient, endpointId: string, deliveryId: string) =>
  finalAttempts(client, endpointId, (a) => a.delivery_id === deliveryId, `delivery ${deliveryId}`);

/** The signature `secret` makes for the delivery (docs/api.md "Signing"). */
const signatureWith = (secret: string, hit: ReceivedRequest) =>
  expectedSignature(secret, hit.headers['webhook-id'], hit.headers['webhook-timestamp'], hit.body);

/** Which of `secrets` the standardwebhooks library accepts the delivery with. */
function verifiesWith(hit: ReceivedRequest, secrets: Record<string, string>): Record<string, boolean> {
  return Object.fromEntries(
    Object.entries(secrets).map(([name, secret]) => {
      try {
        new Webhook(secret).verify(hit.body, hit.headers);
        return [name, true];
      } catch {
        return [name, false];
      }
    }),
  );
}

const account = (scopes = ALL_SCOPES) => createAccountWithKey(hooks.svc.apiUrl, hooks.svc.operatorToken, { scopes, credits: 100 });

describe('secret rotation', () => {
  it('during the overlap a delivery verifies with the old and the new secret; after a rotation with overlap 0 only with the newest', async () => {
    const { client } = await account();
    const { path, endpoint } = await register(client);
    const old = endpoint.secret;
    expect([endpoint.secret_rotated_at, endpoint.previous_secret_expires_at, endpoint.disabled_reason]).toEqual([null, null, null]);

    const before = Date.now();
    const rotated = await client.post(`/webhook_endpoints/${endpoint.id}/rotate_secret`, {});
    expect(rotated.status).toBe(200);
    const fresh: string = rotated.body.secret;
    expect(fresh).toMatch(/^whsec_[A-Za-z0-9+/]{32}$/);
    expect(fresh).not.toBe(old);
    // default overlap: 24 h from the rotation
    const rotatedAt = Date.parse(rotated.body.secret_rotated_at);
    expect(rotatedAt).toBeGreaterThanOrEqual(before - 1_000);
    expect(Date.parse(rotated.body.previous_secret_expires_at) - rotatedAt).toBe(86_400_000);
    const shown = await client.get(`/webhook_endpoints/${endpoint.id}`);
    expect([shown.status, 'secret' in shown.body, shown.body.secret_rotated_at, shown.body.previous_secret_expires_at]).toEqual([
      200,
      false,
      rotated.body.secret_rotated_at,
      rotated.body.previous_secret_expires_at,
    ]);

    const jobId = await submitTiny(client);
    await client.waitForFinal(jobId);
    const during = await nthHit(path, 1);
    expect(JSON.parse(during.body)).toMatchObject({ type: 'job.succeeded', data: { id: jobId } });
    expect(during.headers['webhook-signature']).toBe(`${signatureWith(fresh, during)} ${signatureWith(old, during)}`);
    expect(verifiesWith(during, { old, fresh, other: `whsec_${Buffer.alloc(24, 7).toString('base64')}` })).toEqual({
      old: true,
      fresh: true,
      other: false,
    });

    const again = await client.post(`/webhook_endpoints/${endpoint.id}/rotate_secret`, { overlap_seconds: 0 });
    expect([again.status, again.body.previous_secret_expires_at]).toEqual([200, null]);
    const newest: string = again.body.secret;
    const test = await client.request('POST', `/webhook_endpoints/${endpoint.id}/test`);
    expect(test.status).toBe(202);
    const after = await nthHit(path, 2);
    expect(after.headers['webhook-signature']).toBe(signatureWith(newest, after));
    expect(verifiesWith(after, { old, fresh, newest })).toEqual({ old: false, fresh: false, newest: true });
  });

  it('a second rotation during the overlap keeps only the newest previous secret: two signatures, never three', async () => {
    const { client } = await account();
    const { path, endpoint } = await register(client);
    const first = endpoint.secret;
    const second: string = (await client.post(`/webhook_endpoints/${endpoint.id}/rotate_secret`, { overlap_seconds: 3600 })).body.secret;
    const third = await client.post(`/webhook_endpoints/${endpoint.id}/rotate_secret`, { overlap_seconds: 60 });
    expect(Date.parse(third.body.previous_secret_expires_at) - Date.parse(third.body.secret_rotated_at)).toBe(60_000);
    expect((await client.request('POST', `/webhook_endpoints/${endpoint.id}/test`)).status).toBe(202);
    const hit = await nthHit(path, 1);
    expect(hit.headers['webhook-signature'].split(' ')).toHaveLength(2);
    expect(verifiesWith(hit, { first, second, third: third.body.secret })).toEqual({ first: false, second: true, third: true });
  });

  it('overlap_seconds outside 0..604800 or not an integer is 400 invalid_request; another account gets 404; webhooks:read is 403', async () => {
    const { client } = await account();
    const { endpoint } = await register(client);
    for (const overlap of [-1, 604_801, 1.5, '60']) {
      const r = await client.post(`/webhook_endpoints/${endpoint.id}/rotate_secret`, { overlap_seconds: overlap });
      expect([overlap, r.status, r.body.error.code]).toEqual([overlap, 400, 'invalid_request']);
    }
    expect((await client.post(`/webhook_endpoints/${endpoint.id}/rotate_secret`, { overlap_seconds: 604_800 })).status).toBe(200);
    const other = await account();
    const r = await other.client.post(`/webhook_endpoints/${endpoint.id}/rotate_secret`, {});
    expect([r.status, r.body.error.code]).toEqual([404, 'not_found']);
    const reader = await account(['webhooks:read']);
    const mine = await register(client);
    const forbidden = await reader.client.post(`/webhook_endpoints/${mine.endpoint.id}/rotate_secret`, {});
    expect(forbidden.status).toBe(403);
  });
});

describe('re-enabling an endpoint', () => {
  it('a 410 disables it; enable brings it back and the next job is delivered; enabling twice is a no-op 200', async () => {
    const { client } = await account();
    const { path, endpoint } = await register(client);
    hooks.receiver.plan(path, 410);
    const first = await submitTiny(client);
    await client.waitForFinal(first);
    const gone = await waitFor('the endpoint to be disabled', async () => {
      const r = await client.get(`/webhook_endpoints/${endpoint.id}`);
      return r.body.status === 'disabled' ? r.body : undefined;
    });
    expect([gone.status, gone.disabled_reason]).toEqual(['disabled', 'gone']);
    // a disabled endpoint takes no test event
    const refused = await client.request('POST', `/webhook_endpoints/${endpoint.id}/test`);
    expect([refused.status, refused.body.error.code]).toEqual([409, 'webhook_endpoint_disabled']);

    hooks.receiver.plan(path, 200);
    const enabled = await client.request('POST', `/webhook_endpoints/${endpoint.id}/enable`);
    expect([enabled.status, enabled.body.status, enabled.body.disabled_reason, 'secret' in enabled.body]).toEqual([
      200,
      'enabled',
      null,
      false,
    ]);
    const twice = await client.request('POST', `/webhook_endpoints/${endpoint.id}/enable`);
    expect([twice.status, twice.body.status]).toEqual([200, 'enabled']);

    const second = await submitTiny(client);
    await client.waitForFinal(second);
    const hit = await nthHit(path, 2);
    expect(JSON.parse(hit.body)).toMatchObject({ type: 'job.succeeded', data: { id: second } });
    expect(verifiesWith(hit, { secret: endpoint.secret })).toEqual({ secret: true });
    expect(hits(path).map((h) => JSON.parse(h.body).data.id)).toEqual([first, second]);
  });

  it('the cap on enabled endpoints applies (409 webhook_endpoint_limit_reached); a deleted endpoint stays deleted (409 webhook_endpoint_deleted)', async () => {
    const { client } = await account();
    const { path, endpoint } = await register(client, { events: ['job.succeeded'] });
    hooks.receiver.plan(path, 410);
    const jobId = await submitTiny(client);
    await client.waitForFinal(jobId);
    await waitFor(
      'the endpoint to be disabled',
      async () => (await client.get(`/webhook_endpoints/${endpoint.id}`)).body.status === 'disabled',
    );
    hooks.receiver.plan(path, 200);
    const others = [];
    for (let i = 0; i < MAX_ENDPOINTS; i++) others.push(await register(client, { events: ['job.failed'] }));
    const full = await client.request('POST', `/webhook_endpoints/${endpoint.id}/enable`);
    expect([full.status, full.body.error.code]).toEqual([409, 'webhook_endpoint_limit_reached']);
    expect((await client.get(`/webhook_endpoints/${endpoint.id}`)).body.status).toBe('disabled');

    expect((await client.delete(`/webhook_endpoints/${others[0]!.endpoint.id}`)).status).toBe(200);
    expect((await client.request('POST', `/webhook_endpoints/${endpoint.id}/enable`)).body.status).toBe('enabled');

    const deleted = await client.request('POST', `/webhook_endpoints/${others[0]!.endpoint.id}/enable`);
    expect([deleted.status, deleted.body.error.code]).toEqual([409, 'webhook_endpoint_deleted']);
    const read = await client.get(`/webhook_endpoints/${others[0]!.endpoint.id}`);
    expect([read.status, read.body.status, read.body.disabled_reason]).toEqual([200, 'disabled', 'deleted']);
    const test = await client.request('POST', `/webhook_endpoints/${others[0]!.endpoint.id}/test`);
    expect([test.status, test.body.error.code]).toEqual([409, 'webhook_endpoint_deleted']);
  });
});

describe('test event', () => {
  it('arrives signed, typed webhook.test with the endpoint id, to an endpoint subscribed to other types only; the log shows it', async () => {
    const { client } = await account();
    const { path, endpoint } = await register(client, { events: ['job.failed'] });
    const before = Date.now();
    const r = await client.request('POST', `/webhook_endpoints/${endpoint.id}/test`);
    expect(r.status).toBe(202);
    expect(r.body).toEqual({
      id: expect.stringMatching(DLV_ID),
      object: 'webhook_delivery',
      endpoint_id: endpoint.id,
      event_type: 'webhook.test',
      job_id: null,
      message_id: r.body.id,
      redelivery_of: null,
      scheduled_at: expect.any(String),
    });
    const hit = await nthHit(path, 1);
    const body = JSON.parse(hit.body);
    expect(body).toEqual({ type: 'webhook.test', timestamp: r.body.scheduled_at, data: { endpoint_id: endpoint.id } });
    expect(Date.parse(body.timestamp)).toBeGreaterThanOrEqual(before - 1_000);
    expect(hit.headers['webhook-id']).toBe(r.body.id);
    expect(hit.headers['webhook-signature']).toBe(signatureWith(endpoint.secret, hit));
    expect(new Webhook(endpoint.secret).verify(hit.body, hit.headers)).toEqual(body);

    const log = await finalAttemptsOf(client, endpoint.id, r.body.id);
    expect(log.map((a) => [a.event_type, a.job_id, a.message_id, a.redelivery_of, a.attempt, a.status_code, a.outcome])).toEqual([
      ['webhook.test', null, r.body.id, null, 1, 200, 'succeeded'],
    ]);
  });

  it('is retried like any delivery: 500 then 200 gives two attempts with one webhook-id', async () => {
    const { client } = await account();
    const { path, endpoint } = await register(client);
    hooks.receiver.plan(path, (n) => (n === 0 ? 500 : 200));
    const r = await client.request('POST', `/webhook_endpoints/${endpoint.id}/test`);
    await nthHit(path, 2);
    const log = await finalAttemptsOf(client, endpoint.id, r.body.id);
    expect(log.map((a) => [a.attempt, a.status_code, a.outcome])).toEqual([
      [2, 200, 'succeeded'],
      [1, 500, 'retrying'],
    ]);
    expect(hits(path).map((h) => h.headers['webhook-id'])).toEqual([r.body.id, r.body.id]);
  });
});

describe('re-delivery', () => {
  it('an abandoned delivery is sent again with the same body and webhook-id; the log names what it re-sends', async () => {
    const { client } = await account();
    const { path, endpoint } = await register(client);
    hooks.receiver.plan(path, 500);
    const jobId = await submitTiny(client);
    await client.waitForFinal(jobId);
    const log = await waitFor('the delivery to be abandoned', async () => {
      const r = await client.get(`/webhook_endpoints/${endpoint.id}/deliveries`);
      const mine = (r.body.data as any[]).filter((a) => a.job_id === jobId);
      return mine[0]?.outcome === 'abandoned' ? mine : undefined;
    });
    const original: string = log[0].delivery_id;
    expect([log.length, log[0].message_id, log[0].redelivery_of]).toEqual([RETRY_SCHEDULE_MS.length + 1, original, null]);
    expect(hits(path)).toHaveLength(RETRY_SCHEDULE_MS.length + 1);

    hooks.receiver.plan(path, 200);
    const r = await client.request('POST', `/webhook_endpoints/${endpoint.id}/deliveries/${original}/redeliver`);
    expect(r.status).toBe(202);
    expect(r.body).toMatchObject({
      object: 'webhook_delivery',
      event_type: 'job.succeeded',
      job_id: jobId,
      message_id: original,
      redelivery_of: original,
    });
    expect(r.body.id).toMatch(DLV_ID);
    expect(r.body.id).not.toBe(original);
    const again = await nthHit(path, RETRY_SCHEDULE_MS.length + 2);
    expect(again.headers['webhook-id']).toBe(original);
    expect(again.body).toBe(hits(path)[0]!.body);
    expect(new Webhook(endpoint.secret).verify(again.body, again.headers)).toMatchObject({ type: 'job.succeeded', data: { id: jobId } });
    const attempts = await finalAttemptsOf(client, endpoint.id, r.body.id);
    expect(attempts.map((a) => [a.job_id, a.message_id, a.redelivery_of, a.attempt, a.status_code, a.outcome])).toEqual([
      [jobId, original, original, 1, 200, 'succeeded'],
    ]);
  });

  it("a succeeded test event can be re-sent too; an unknown delivery or another endpoint's is 404 not_found", async () => {
    const { client } = await account();
    const { path, endpoint } = await register(client);
    const test = await client.request('POST', `/webhook_endpoints/${endpoint.id}/test`);
    await finalAttemptsOf(client, endpoint.id, test.body.id);
    const r = await client.request('POST', `/webhook_endpoints/${endpoint.id}/deliveries/${test.body.id}/redeliver`);
    expect([r.status, r.body.event_type, r.body.job_id, r.body.message_id]).toEqual([202, 'webhook.test', null, test.body.id]);
    const second = await nthHit(path, 2);
    expect([second.headers['webhook-id'], second.body]).toEqual([test.body.id, hits(path)[0]!.body]);

    const other = await register(client);
    for (const url of [
      `/webhook_endpoints/${other.endpoint.id}/deliveries/${test.body.id}/redeliver`,
      `/webhook_endpoints/${endpoint.id}/deliveries/dlv_00000000000000000000000000000000/redeliver`,
      `/webhook_endpoints/${endpoint.id}/deliveries/nope/redeliver`,
    ]) {
      const nf = await client.request('POST', url);
      expect([url, nf.status, nf.body.error.code]).toEqual([url, 404, 'not_found']);
    }
  });
});

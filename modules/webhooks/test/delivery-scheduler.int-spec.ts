import { newId, streams, type StoredEvent, type WebhookEventType } from '@upscaler/contracts';
import { handleCommand } from '@upscaler/eventstore';
import { webhookEndpointDecider } from '../src/model/webhook-endpoint.decider';
import { createTestEventLog, useTestPostgres, type TestEventLog } from '@upscaler/testing';
import { DeliveryScheduler } from '../src/workers/delivery.scheduler';
import { DeliveryCommandHandler } from '../src/webhook.command-handlers';

/**
 * The webhook scheduler on its own (the middle tier), against a real Postgres event log: a job's
 * final event schedules one delivery per endpoint of the account that wants its type, with the job's
 * final view as the body (read from the job's read model, written in the final event's transaction);
 * the same event handled again schedules nothing more; other events schedule nothing.
 */
const pg = useTestPostgres();
let log: TestEventLog;
let scheduler: DeliveryScheduler;
const now = () => new Date().toISOString();

beforeAll(async () => {
  log = await createTestEventLog(pg);
  scheduler = new DeliveryScheduler(new DeliveryCommandHandler(log.store, log.clock), log.readModels);
});
afterAll(async () => {
  await log?.close();
});

async function endpoint(accountId: string, events: WebhookEventType[]): Promise<string> {
  const endpointId = newId('we');
  await handleCommand(log.store, streams.webhookEndpoint(endpointId), webhookEndpointDecider, {
    type: 'CreateWebhookEndpoint',
    data: { endpointId, accountId, url: 'https://hooks.example.com/x', events, description: null, secret: 'whsec_dGVzdA==', now: now() },
  });
  return endpointId;
}

it('schedules one delivery per endpoint that wants the event, once, with the final job view as body', async () => {
  const accountId = await log.openAccount(3);
  const wantsAll = await endpoint(accountId, ['job.succeeded', 'job.failed', 'job.cancelled']);
  await endpoint(accountId, ['job.succeeded']);
  const jobId = await log.submitJob(accountId);
  const { newEvents } = await log.job(jobId, { type: 'CancelJob', data: { now: now() } });
  const cancelled = newEvents[0] as StoredEvent;
  const queued = (await log.store.readStream(streams.job(jobId)))[0];
  await scheduler.handle(queued);
  await scheduler.handle(cancelled);
  await scheduler.handle(cancelled);
  const scheduled = await log.db.query(`SELECT stream_id, data FROM events WHERE type = 'DeliveryScheduled' AND data->>'jobId' = $1`, [
    jobId,
  ]);
  expect(scheduled.map((r: { data: { endpointId: string; eventType: string } }) => [r.data.endpointId, r.data.eventType])).toEqual([
    [wantsAll, 'job.cancelled'],
  ]);
  const body = JSON.parse(scheduled[0].data.body);
  expect([body.type, body.data.id, body.data.status, body.data.credits]).toEqual(['job.cancelled', jobId, 'cancelled', 3]);
});

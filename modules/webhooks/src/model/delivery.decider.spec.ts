import type { DeliveryAttemptedData, DeliveryEvent, DeliveryScheduledData } from './webhook.events';
import { foldEvents, DeciderSpecification, T0, at } from '@upscaler/domain';
import { jobFixtures } from '@upscaler/jobs';
import type { RecordAttempt } from './delivery.commands';
import { deliveryDecider } from './delivery.decider';
import { isDeliveryDue } from './delivery.state';
import { toDeliveryAttemptView, toDeliveryAttemptViews } from './delivery.views';
import { DEFAULT_RETRY_SCHEDULE_MS, retryDelayMs } from './retry-schedule';

const { JOB_ID } = jobFixtures;

const spec = DeciderSpecification.for(deliveryDecider);
const DLV = 'dlv_0190a1b2c3d47e8f9a0b1c2d3e4f5a70';
const WE = 'we_0190a1b2c3d47e8f9a0b1c2d3e4f5a6e';
const ACCT = 'acct_0190a1b2c3d47e8f9a0b1c2d3e4f5a6c';
const BODY = '{"type":"job.succeeded","timestamp":"2026-01-01T00:00:00.000Z","data":{}}';
const SCHEDULE = [1_000, 10_000];

const scheduledData: DeliveryScheduledData = {
  deliveryId: DLV,
  endpointId: WE,
  accountId: ACCT,
  eventType: 'job.succeeded',
  jobId: JOB_ID,
  body: BODY,
  scheduledAt: T0,
  messageId: DLV,
  redeliveryOf: null,
};
const scheduled: DeliveryEvent = { type: 'DeliveryScheduled', data: scheduledData };
const attempted = (d: Omit<DeliveryAttemptedData, 'deliveryId' | 'endpointId' | 'durationMs'>): DeliveryEvent => ({
  type: 'DeliveryAttempted',
  data: { deliveryId: DLV, endpointId: WE, durationMs: 120, ...d },
});
const record = (statusCode: number | null, nowMs: number, jitter = 0.5, error: string | null = null): RecordAttempt => ({
  type: 'RecordAttempt',
  data: { statusCode, error, now: at(nowMs), durationMs: 120, jitter, schedule: SCHEDULE },
});
const firstFailed = attempted({
  attempt: 1,
  statusCode: 500,
  error: null,
  attemptedAt: at(0),
  outcome: 'retrying',
  nextAttemptAt: at(1_000),
});
const secondFailed = attempted({
  attempt: 2,
  statusCode: 503,
  error: null,
  attemptedAt: at(1_000),
  outcome: 'retrying',
  nextAttemptAt: at(11_000),
});

describe('delivery decider (docs/design.md §4: signed deliveries with retries)', () => {
  it('ScheduleDelivery records the body to send and makes the first attempt due at once', () => {
    const state = spec
      .given([])
      .when({
        type: 'ScheduleDelivery',
        data: { deliveryId: DLV, endpointId: WE, accountId: ACCT, eventType: 'job.succeeded', jobId: JOB_ID, body: BODY, now: T0 },
      })
      .then([scheduled]);
    expect([state.status, state.nextAttemptAt, isDeliveryDue(state, T0)]).toEqual(['scheduled', T0, true]);
  });

  it('scheduling the same delivery twice changes nothing', () => {
    spec
      .given([scheduled])
      .when({
        type: 'ScheduleDelivery',
        data: { deliveryId: DLV, endpointId: WE, accountId: ACCT, eventType: 'job.succeeded', jobId: JOB_ID, body: BODY, now: at(5) },
      })
      .thenNothing();
  });

  it.each([200, 204, 299])('a %i answer: succeeded, nothing more to send', (status) => {
    spec
      .given([scheduled])
      .when(record(status, 0))
      .then([attempted({ attempt: 1, statusCode: status, error: null, attemptedAt: at(0), outcome: 'succeeded', nextAttemptAt: null })]);
  });

  it('a 410 answer: endpoint_gone, final (the endpoint is to be disabled)', () => {
    spec
      .given([scheduled, firstFailed])
      .when(record(410, 1_000))
      .then([
        attempted({ attempt: 2, statusCode: 410, error: null, attemptedAt: at(1_000), outcome: 'endpoint_gone', nextAttemptAt: null }),
      ]);
  });

  it('a 500 answer: retrying after the first wait of the schedule (jitter 0.5 = no spread)', () => {
    spec.given([scheduled]).when(record(500, 0)).then([firstFailed]);
  });

  it('no answer (timeout): retrying, with the error recorded and no status code', () => {
    spec
      .given([scheduled])
      .when(record(null, 0, 0.5, 'timeout after 10000 ms'))
      .then([
        attempted({
          attempt: 1,
          statusCode: null,
          error: 'timeout after 10000 ms',
          attemptedAt: at(0),
          outcome: 'retrying',
          nextAttemptAt: at(1_000),
        }),
      ]);
  });

  it.each([
    [0, 9_000],
    [0.25, 9_500],
    [0.75, 10_500],
    [0.9999, 11_000],
  ])('jitter %p spreads the second wait of 10 s to %i ms (±10 %%)', (jitter, waitMs) => {
    spec
      .given([scheduled, firstFailed])
      .when(record(503, 1_000, jitter))
      .then([
        attempted({
          attempt: 2,
          statusCode: 503,
          error: null,
          attemptedAt: at(1_000),
          outcome: 'retrying',
          nextAttemptAt: at(1_000 + waitMs),
        }),
      ]);
  });

  it('when the schedule is exhausted the delivery is abandoned', () => {
    spec
      .given([scheduled, firstFailed, secondFailed])
      .when(record(502, 11_000))
      .then([attempted({ attempt: 3, statusCode: 502, error: null, attemptedAt: at(11_000), outcome: 'abandoned', nextAttemptAt: null })]);
  });

  it('abandon (endpoint disabled meanwhile) ends the delivery as abandoned, even with retries left', () => {
    spec
      .given([scheduled, firstFailed])
      .when({
        type: 'RecordAttempt',
        data: {
          statusCode: null,
          error: 'endpoint disabled',
          now: at(1_000),
          durationMs: 0,
          jitter: 0.5,
          schedule: SCHEDULE,
          abandon: true,
        },
      })
      .then([
        {
          type: 'DeliveryAttempted',
          data: {
            deliveryId: DLV,
            endpointId: WE,
            attempt: 2,
            statusCode: null,
            error: 'endpoint disabled',
            attemptedAt: at(1_000),
            durationMs: 0,
            outcome: 'abandoned',
            nextAttemptAt: null,
          },
        },
      ]);
  });

  it('a redirect is not a success: retrying', () => {
    spec
      .given([scheduled])
      .when(record(301, 0))
      .then([attempted({ attempt: 1, statusCode: 301, error: null, attemptedAt: at(0), outcome: 'retrying', nextAttemptAt: at(1_000) })]);
  });

  it.each([
    ['succeeded', attempted({ attempt: 1, statusCode: 200, error: null, attemptedAt: at(0), outcome: 'succeeded', nextAttemptAt: null })],
    [
      'endpoint_gone',
      attempted({ attempt: 1, statusCode: 410, error: null, attemptedAt: at(0), outcome: 'endpoint_gone', nextAttemptAt: null }),
    ],
    [
      'abandoned',
      attempted({ attempt: 3, statusCode: 500, error: null, attemptedAt: at(11_000), outcome: 'abandoned', nextAttemptAt: null }),
    ],
  ])('no attempt is recorded after a final outcome (%s)', (outcome, last) => {
    spec.given([scheduled, last]).when(record(200, 20_000)).thenThrows('conflict', `Delivery ${DLV} already ended: ${outcome}.`);
  });

  it('an attempt for a delivery that was never scheduled is not_found', () => {
    spec.given([]).when(record(200, 0)).thenThrows('not_found');
  });

  it.each([-0.1, 1, Number.NaN])('jitter %p is invalid', (jitter) => {
    spec
      .given([scheduled])
      .when(record(500, 0, jitter))
      .thenThrows('invalid_request', 'jitter must be in [0, 1).');
  });

  it('without a schedule in the command the default one applies (first wait 5 s)', () => {
    spec
      .given([scheduled])
      .when({ type: 'RecordAttempt', data: { statusCode: 500, error: null, now: T0, durationMs: 120, jitter: 0.5 } })
      .then([attempted({ attempt: 1, statusCode: 500, error: null, attemptedAt: T0, outcome: 'retrying', nextAttemptAt: at(5_000) })]);
  });

  it('with the default schedule a failing endpoint gets 10 attempts over about three days, then abandoned', () => {
    let events: DeliveryEvent[] = [scheduled];
    let nowMs = 0;
    for (;;) {
      const state = foldEvents(deliveryDecider, events);
      if (state.nextAttemptAt === null) break;
      nowMs = Date.parse(state.nextAttemptAt) - Date.parse(T0);
      events = [
        ...events,
        ...deliveryDecider.decide(
          { type: 'RecordAttempt', data: { statusCode: 500, error: null, now: at(nowMs), durationMs: 1, jitter: 0.5 } },
          state,
        ),
      ];
    }
    const state = foldEvents(deliveryDecider, events);
    expect([state.attempts.length, state.status, nowMs]).toEqual([10, 'abandoned', ((71 * 60 + 35) * 60 + 5) * 1_000]);
  });

  it('the delivery log lists each attempt with status, error, time and next retry, newest first', () => {
    const state = foldEvents(deliveryDecider, [scheduled, firstFailed, secondFailed]);
    expect(toDeliveryAttemptViews(state)).toEqual([
      {
        id: `${DLV}_2`,
        object: 'webhook_delivery_attempt',
        delivery_id: DLV,
        event_type: 'job.succeeded',
        job_id: JOB_ID,
        message_id: DLV,
        redelivery_of: null,
        attempt: 2,
        status_code: 503,
        error: null,
        outcome: 'retrying',
        attempted_at: at(1_000),
        next_attempt_at: at(11_000),
      },
      toDeliveryAttemptView(scheduledData, firstFailed.data as DeliveryAttemptedData),
    ]);
    expect(toDeliveryAttemptViews(state)[1]!.id).toBe(`${DLV}_1`);
  });
  it('a delivery scheduled before re-delivery existed (no messageId) is sent and listed under its own id', () => {
    const { messageId: _m, redeliveryOf: _r, ...old } = scheduledData;
    const view = toDeliveryAttemptViews(foldEvents(deliveryDecider, [{ type: 'DeliveryScheduled', data: old }, firstFailed]))[0]!;
    expect([view.message_id, view.redelivery_of]).toEqual([DLV, null]);
  });
});

describe('retry schedule', () => {
  it('DEFAULT_RETRY_SCHEDULE_MS grows from 5 s to 24 h and spans about three days', () => {
    const total = DEFAULT_RETRY_SCHEDULE_MS.reduce((a, b) => a + b, 0);
    expect([DEFAULT_RETRY_SCHEDULE_MS[0], DEFAULT_RETRY_SCHEDULE_MS.at(-1), total]).toEqual([5_000, 86_400_000, 257_705_000]);
    for (let i = 1; i < DEFAULT_RETRY_SCHEDULE_MS.length; i++) {
      expect(DEFAULT_RETRY_SCHEDULE_MS[i]!).toBeGreaterThanOrEqual(DEFAULT_RETRY_SCHEDULE_MS[i - 1]!);
    }
  });

  it('retryDelayMs is null past the end of the schedule', () => {
    expect([retryDelayMs(SCHEDULE, 2, 0.5), retryDelayMs(SCHEDULE, 3, 0.5)]).toEqual([10_000, null]);
  });
});

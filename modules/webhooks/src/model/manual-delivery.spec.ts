import type { DeliveryEvent, WebhookEndpointEvent } from './webhook.events';
import { foldEvents, DeciderSpecification, T0, at } from '@upscaler/domain';
import { jobFixtures } from '@upscaler/jobs';
import { deliveryDecider } from './delivery.decider';
import { toDeliveryAttemptViews, toWebhookDeliveryView } from './delivery.views';
import { scheduleRedelivery, scheduleTestDelivery } from './manual-delivery';
import { webhookEndpointDecider } from './webhook-endpoint.decider';

const { JOB_ID } = jobFixtures;

const WE = 'we_0190a1b2c3d47e8f9a0b1c2d3e4f5a6e';
const OTHER_WE = 'we_0190a1b2c3d47e8f9a0b1c2d3e4f5a6f';
const ACCT = 'acct_0190a1b2c3d47e8f9a0b1c2d3e4f5a6c';
const ORIGINAL = 'dlv_0190a1b2c3d47e8f9a0b1c2d3e4f5a70';
const REDELIVERY = 'dlv_0190a1b2c3d47e8f9a0b1c2d3e4f5a71';
const SECOND_REDELIVERY = 'dlv_0190a1b2c3d47e8f9a0b1c2d3e4f5a72';
const TEST = 'dlv_0190a1b2c3d47e8f9a0b1c2d3e4f5a73';
const BODY = '{"type":"job.succeeded","timestamp":"2026-01-01T00:00:00.000Z","data":{}}';

const created: WebhookEndpointEvent = {
  type: 'WebhookEndpointCreated',
  data: {
    endpointId: WE,
    accountId: ACCT,
    url: 'https://hooks.example.com/u',
    events: ['job.failed'],
    description: null,
    secret: 'whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw',
    createdAt: T0,
  },
};
const disabled = (reason: 'gone' | 'deleted'): WebhookEndpointEvent => ({
  type: 'WebhookEndpointDisabled',
  data: { endpointId: WE, accountId: ACCT, reason, disabledAt: at(1_000) },
});
const endpoint = (...events: WebhookEndpointEvent[]) => foldEvents(webhookEndpointDecider, [created, ...events]);
const original: DeliveryEvent[] = [
  {
    type: 'DeliveryScheduled',
    data: {
      deliveryId: ORIGINAL,
      endpointId: WE,
      accountId: ACCT,
      eventType: 'job.succeeded',
      jobId: JOB_ID,
      body: BODY,
      scheduledAt: T0,
      messageId: ORIGINAL,
      redeliveryOf: null,
    },
  },
  {
    type: 'DeliveryAttempted',
    data: {
      deliveryId: ORIGINAL,
      endpointId: WE,
      attempt: 1,
      statusCode: 500,
      error: 'HTTP 500',
      attemptedAt: T0,
      durationMs: 3,
      outcome: 'abandoned',
      nextAttemptAt: null,
    },
  },
];

describe('test event', () => {
  it('schedules webhook.test with the endpoint id, due at once, to an endpoint that did not subscribe to it', () => {
    const command = scheduleTestDelivery(endpoint(), { deliveryId: TEST, now: at(5_000) });
    const state = DeciderSpecification.for(deliveryDecider)
      .given([])
      .when(command)
      .then([
        {
          type: 'DeliveryScheduled',
          data: {
            deliveryId: TEST,
            endpointId: WE,
            accountId: ACCT,
            eventType: 'webhook.test',
            jobId: null,
            body: `{"type":"webhook.test","timestamp":"${at(5_000)}","data":{"endpoint_id":"${WE}"}}`,
            scheduledAt: at(5_000),
            messageId: TEST,
            redeliveryOf: null,
          },
        },
      ]);
    expect([state.status, state.nextAttemptAt]).toEqual(['scheduled', at(5_000)]);
  });

  it('a disabled endpoint gets none: webhook_endpoint_disabled (410) or webhook_endpoint_deleted', () => {
    expect(() => scheduleTestDelivery(endpoint(disabled('gone')), { deliveryId: TEST, now: T0 })).toThrow(
      expect.objectContaining({
        code: 'webhook_endpoint_disabled',
        message: `Webhook endpoint ${WE} is disabled (it answered 410 Gone); enable it first.`,
      }),
    );
    expect(() => scheduleTestDelivery(endpoint(disabled('deleted')), { deliveryId: TEST, now: T0 })).toThrow(
      expect.objectContaining({ code: 'webhook_endpoint_deleted' }),
    );
  });
});

describe('re-delivery', () => {
  it('an abandoned delivery is sent again: same body and event type, the original webhook-id, due now', () => {
    const command = scheduleRedelivery(endpoint(), foldEvents(deliveryDecider, original), { deliveryId: REDELIVERY, now: at(9_000) });
    const state = DeciderSpecification.for(deliveryDecider)
      .given([])
      .when(command)
      .then([
        {
          type: 'DeliveryScheduled',
          data: {
            deliveryId: REDELIVERY,
            endpointId: WE,
            accountId: ACCT,
            eventType: 'job.succeeded',
            jobId: JOB_ID,
            body: BODY,
            scheduledAt: at(9_000),
            messageId: ORIGINAL,
            redeliveryOf: ORIGINAL,
          },
        },
      ]);
    expect(toDeliveryAttemptViews(state)).toEqual([]);
    expect(toWebhookDeliveryView(state)).toEqual({
      id: REDELIVERY,
      object: 'webhook_delivery',
      endpoint_id: WE,
      event_type: 'job.succeeded',
      job_id: JOB_ID,
      message_id: ORIGINAL,
      redelivery_of: ORIGINAL,
      scheduled_at: at(9_000),
    });
    expect([state.status, state.nextAttemptAt]).toEqual(['scheduled', at(9_000)]);
  });

  it('a re-delivery of a re-delivery keeps the first message id and names the one it re-sends', () => {
    const first = scheduleRedelivery(endpoint(), foldEvents(deliveryDecider, original), { deliveryId: REDELIVERY, now: at(9_000) });
    const firstState = foldEvents(deliveryDecider, deliveryDecider.decide(first, deliveryDecider.initialState()));
    const second = scheduleRedelivery(endpoint(), firstState, { deliveryId: SECOND_REDELIVERY, now: at(10_000) });
    expect([second.data.messageId, second.data.redeliveryOf, second.data.body]).toEqual([ORIGINAL, REDELIVERY, BODY]);
  });

  it('a delivery scheduled before messageId existed is re-sent under its own delivery id', () => {
    const [scheduled] = original;
    const { messageId: _m, redeliveryOf: _r, ...old } = (scheduled as Extract<DeliveryEvent, { type: 'DeliveryScheduled' }>).data;
    const command = scheduleRedelivery(endpoint(), foldEvents(deliveryDecider, [{ type: 'DeliveryScheduled', data: old }]), {
      deliveryId: REDELIVERY,
      now: at(9_000),
    });
    expect(command.data.messageId).toBe(ORIGINAL);
  });

  it("another endpoint's delivery, or none, is not_found; a disabled endpoint gets none", () => {
    const foreign = foldEvents(deliveryDecider, [
      { ...original[0]!, data: { ...(original[0]!.data as object), endpointId: OTHER_WE } } as DeliveryEvent,
    ]);
    expect(() => scheduleRedelivery(endpoint(), foreign, { deliveryId: REDELIVERY, now: T0 })).toThrow(
      expect.objectContaining({ code: 'not_found', message: 'No delivery with that id for this webhook endpoint.' }),
    );
    expect(() => scheduleRedelivery(endpoint(), deliveryDecider.initialState(), { deliveryId: REDELIVERY, now: T0 })).toThrow(
      expect.objectContaining({ code: 'not_found' }),
    );
    expect(() =>
      scheduleRedelivery(endpoint(disabled('gone')), foldEvents(deliveryDecider, original), { deliveryId: REDELIVERY, now: T0 }),
    ).toThrow(expect.objectContaining({ code: 'webhook_endpoint_disabled' }));
  });
});

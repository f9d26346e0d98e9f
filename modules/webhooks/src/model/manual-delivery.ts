import { DomainError } from '@upscaler/contracts';
import { WEBHOOK_TEST_EVENT_TYPE, deliveryMessageId } from './webhook.events';
import { type WebhookTestPayload } from './webhook.views';
import { canonicalInstant } from '@upscaler/domain';
import type { ScheduleDelivery } from './delivery.commands';
import type { DeliveryState } from './delivery.state';
import type { WebhookEndpointState } from './webhook-endpoint.state';

/**
 * Deliveries an account owner asks for (docs/api.md "Test events" and "Re-delivery"): a test
 * event, or one more delivery of an earlier one. Each is a new `delivery-…` stream, signed and retried like any
 * other; only an enabled endpoint gets one. `deliveryId` and `now` come from the caller.
 */
export interface ManualDeliveryInput {
  deliveryId: string;
  now: string;
}

/** `webhook.test` to this endpoint, whatever event types it subscribed to. */
export function scheduleTestDelivery(endpoint: WebhookEndpointState, { deliveryId, now }: ManualDeliveryInput): ScheduleDelivery {
  const e = assertEndpointTakesDeliveries(endpoint);
  const timestamp = canonicalInstant(now);
  const payload: WebhookTestPayload = { type: WEBHOOK_TEST_EVENT_TYPE, timestamp, data: { endpoint_id: e.endpointId } };
  return scheduleTo(e, { deliveryId, eventType: WEBHOOK_TEST_EVENT_TYPE, jobId: null, body: JSON.stringify(payload), now: timestamp });
}

/**
 * The same body and event type as `original` (any delivery of this endpoint, whatever its outcome), sent now
 * under the original message's `webhook-id` (Standard Webhooks: a message sent again keeps its id, so the
 * receiver can drop it if it had it already).
 */
export function scheduleRedelivery(
  endpoint: WebhookEndpointState,
  original: DeliveryState,
  { deliveryId, now }: ManualDeliveryInput,
): ScheduleDelivery {
  const e = assertEndpointTakesDeliveries(endpoint);
  const o = original.delivery;
  if (original.status === 'none' || o === null || o.endpointId !== e.endpointId) {
    throw new DomainError('not_found', 'No delivery with that id for this webhook endpoint.');
  }
  return scheduleTo(e, {
    deliveryId,
    eventType: o.eventType,
    jobId: o.jobId,
    body: o.body,
    now: canonicalInstant(now),
    messageId: deliveryMessageId(o),
    redeliveryOf: o.deliveryId,
  });
}

/** ScheduleDelivery of a delivery to endpoint `e` (its id and account). */
function scheduleTo(
  e: { endpointId: string; accountId: string },
  data: Omit<ScheduleDelivery['data'], 'endpointId' | 'accountId'>,
): ScheduleDelivery {
  return { type: 'ScheduleDelivery', data: { ...data, endpointId: e.endpointId, accountId: e.accountId } };
}

function assertEndpointTakesDeliveries(state: WebhookEndpointState) {
  const e = state.endpoint;
  if (state.status === 'none' || e === null) throw new DomainError('not_found', 'No such webhook endpoint.');
  if (state.status === 'disabled') {
    if (state.disabledReason === 'deleted') {
      throw new DomainError('webhook_endpoint_deleted', `Webhook endpoint ${e.endpointId} was deleted; register a new one.`);
    }
    throw new DomainError(
      'webhook_endpoint_disabled',
      `Webhook endpoint ${e.endpointId} is disabled (it answered 410 Gone); enable it first.`,
    );
  }
  return e;
}

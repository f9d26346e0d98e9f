import { DomainError } from '@upscaler/contracts';
import { deliveryMessageId, type DeliveryAttemptedData, type DeliveryScheduledData } from './webhook.events';
import { type DeliveryAttemptView, type WebhookDeliveryView } from './webhook.views';
import type { DeliveryState } from './delivery.state';

/**
 * One row of an endpoint's delivery log (docs/design.md §6: status code, error, time, next retry). An attempt
 * has no id of its own in the log, so its id is the delivery id and the attempt number.
 */
export function toDeliveryAttemptView(delivery: DeliveryScheduledData, attempt: DeliveryAttemptedData): DeliveryAttemptView {
  return {
    id: deliveryAttemptId(delivery.deliveryId, attempt.attempt),
    object: 'webhook_delivery_attempt',
    delivery_id: delivery.deliveryId,
    event_type: delivery.eventType,
    job_id: delivery.jobId,
    message_id: deliveryMessageId(delivery),
    redelivery_of: delivery.redeliveryOf ?? null,
    attempt: attempt.attempt,
    status_code: attempt.statusCode,
    error: attempt.error,
    outcome: attempt.outcome,
    attempted_at: attempt.attemptedAt,
    next_attempt_at: attempt.nextAttemptAt,
  };
}

export function deliveryAttemptId(deliveryId: string, attempt: number): string {
  return `${deliveryId}_${attempt}`;
}

/** All attempts of one delivery, newest first (as a log is read). */
export function toDeliveryAttemptViews(state: DeliveryState): DeliveryAttemptView[] {
  const delivery = state.delivery;
  if (delivery === null) return [];
  return state.attempts.map((a) => toDeliveryAttemptView(delivery, a)).reverse();
}

/** The answer to a test event or a re-delivery: the delivery just scheduled. */
export function toWebhookDeliveryView(state: DeliveryState): WebhookDeliveryView {
  const d = state.delivery;
  if (d === null) throw new DomainError('not_found', 'No such delivery.');
  return {
    id: d.deliveryId,
    object: 'webhook_delivery',
    endpoint_id: d.endpointId,
    event_type: d.eventType,
    job_id: d.jobId,
    message_id: deliveryMessageId(d),
    redelivery_of: d.redeliveryOf ?? null,
    scheduled_at: d.scheduledAt,
  };
}

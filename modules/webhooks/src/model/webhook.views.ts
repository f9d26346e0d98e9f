import type { JobView, WebhookEventType } from '@upscaler/contracts';
import type { DeliveryEventType } from './webhook.events';

export interface WebhookEndpointView {
  id: string;
  object: 'webhook_endpoint';
  url: string;
  events: WebhookEventType[];
  description: string | null;
  status: 'enabled' | 'disabled';
  created_at: string;
  /** Additive: why it is disabled; null while enabled. Only a `gone` one can be enabled again. */
  disabled_reason: 'gone' | 'deleted' | null;
  /** When the secret was last rotated; null if never. */
  secret_rotated_at: string | null;
  /** Until when deliveries are also signed with the secret before the last rotation; null when none was kept. */
  previous_secret_expires_at: string | null;
  /** Only in the creation and the rotation answers. */
  secret?: string;
}

export interface DeliveryAttemptView {
  id: string;
  object: 'webhook_delivery_attempt';
  delivery_id: string;
  event_type: DeliveryEventType;
  /** null for a test event (`webhook.test`). */
  job_id: string | null;
  /** Additive: the `webhook-id` of its attempts (the delivery id, or a re-delivery's original's). */
  message_id: string;
  /** The delivery this one re-sends; null for an original delivery. */
  redelivery_of: string | null;
  attempt: number;
  status_code: number | null;
  error: string | null;
  outcome: 'succeeded' | 'retrying' | 'abandoned' | 'endpoint_gone';
  attempted_at: string;
  next_attempt_at: string | null;
}

/**
 * A delivery just scheduled on demand (POST …/test, POST …/deliveries/{id}/redeliver): its
 * attempts then appear in the endpoint's delivery log under `delivery_id` = `id`.
 */
export interface WebhookDeliveryView {
  id: string;
  object: 'webhook_delivery';
  endpoint_id: string;
  event_type: DeliveryEventType;
  job_id: string | null;
  message_id: string;
  redelivery_of: string | null;
  scheduled_at: string;
}

/** Webhook delivery body (docs/design.md §6). */
export interface WebhookPayload {
  type: WebhookEventType;
  timestamp: string;
  data: JobView;
}

/** The test (ping) event's body (POST /webhook_endpoints/{id}/test; docs/api.md "Test events"). */
export interface WebhookTestPayload {
  type: 'webhook.test';
  timestamp: string;
  data: { endpoint_id: string };
}

import type { WebhookEventType } from '@upscaler/contracts';

/**
 * The type of a delivery's body: a job's event type, or `webhook.test`, the test (ping) event an account owner
 * sends on demand (POST /webhook_endpoints/{id}/test). `webhook.test` is not one an endpoint subscribes to.
 */
export const WEBHOOK_TEST_EVENT_TYPE = 'webhook.test';
export type DeliveryEventType = WebhookEventType | typeof WEBHOOK_TEST_EVENT_TYPE;

/** Events of `webhook-…` (endpoint) and `delivery-…` streams, data v1. */
export interface WebhookEndpointCreatedData {
  endpointId: string;
  accountId: string;
  url: string;
  events: WebhookEventType[];
  description: string | null;
  /** `whsec_…`; needed to sign deliveries, never shown again after creation. */
  secret: string;
  createdAt: string;
}
export interface WebhookEndpointDisabledData {
  endpointId: string;
  accountId: string;
  reason: 'gone' | 'deleted';
  disabledAt: string;
}
/** An endpoint disabled because a delivery answered 410 is enabled again by its owner (never a deleted one). */
export interface WebhookEndpointEnabledData {
  endpointId: string;
  accountId: string;
  enabledAt: string;
}
/**
 * A new signing secret (shown once, in the rotation's answer). Until `previousSecretExpiresAt` every delivery is
 * signed with both the new and the previous secret; `previousSecret` null: the old one stopped at once.
 */
export interface WebhookEndpointSecretRotatedData {
  endpointId: string;
  accountId: string;
  secret: string;
  previousSecret: string | null;
  previousSecretExpiresAt: string | null;
  rotatedAt: string;
}
export type WebhookEndpointEvent =
  | { type: 'WebhookEndpointCreated'; data: WebhookEndpointCreatedData }
  | { type: 'WebhookEndpointDisabled'; data: WebhookEndpointDisabledData }
  | { type: 'WebhookEndpointEnabled'; data: WebhookEndpointEnabledData }
  | { type: 'WebhookEndpointSecretRotated'; data: WebhookEndpointSecretRotatedData };
export const WEBHOOK_ENDPOINT_EVENT_TYPES: readonly WebhookEndpointEvent['type'][] = [
  'WebhookEndpointCreated',
  'WebhookEndpointDisabled',
  'WebhookEndpointEnabled',
  'WebhookEndpointSecretRotated',
];

export interface DeliveryScheduledData {
  deliveryId: string;
  endpointId: string;
  accountId: string;
  eventType: DeliveryEventType;
  /** The job whose event is delivered; null for a test event. */
  jobId: string | null;
  /** The exact JSON body that is signed and sent on every attempt. */
  body: string;
  scheduledAt: string;
  /**
   * The `webhook-id` header of every attempt: the delivery id, or for a re-delivery the original message's id
   * (Standard Webhooks: a message sent again keeps its id). Absent in events written before re-delivery existed:
   * the delivery id (deliveryMessageId).
   */
  messageId?: string;
  /** The delivery this one sends again (POST …/deliveries/{id}/redeliver); absent or null otherwise. */
  redeliveryOf?: string | null;
}
export interface DeliveryAttemptedData {
  deliveryId: string;
  endpointId: string;
  attempt: number;
  /** HTTP status, or null when no answer (network error, timeout, SSRF refusal). */
  statusCode: number | null;
  error: string | null;
  attemptedAt: string;
  durationMs: number;
  outcome: 'succeeded' | 'retrying' | 'abandoned' | 'endpoint_gone';
  /** Set when outcome is retrying. */
  nextAttemptAt: string | null;
}
export type DeliveryEvent =
  { type: 'DeliveryScheduled'; data: DeliveryScheduledData } | { type: 'DeliveryAttempted'; data: DeliveryAttemptedData };
export const DELIVERY_EVENT_TYPES: readonly DeliveryEvent['type'][] = ['DeliveryScheduled', 'DeliveryAttempted'];

/** The `webhook-id` of a delivery's attempts (events before re-delivery existed carry no messageId). */
export function deliveryMessageId(d: Pick<DeliveryScheduledData, 'deliveryId' | 'messageId'>): string {
  return d.messageId ?? d.deliveryId;
}

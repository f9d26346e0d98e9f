import type { WebhookEventType } from '../job';

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
export type WebhookEndpointEvent =
  | { type: 'WebhookEndpointCreated'; data: WebhookEndpointCreatedData }
  | { type: 'WebhookEndpointDisabled'; data: WebhookEndpointDisabledData };
export const WEBHOOK_ENDPOINT_EVENT_TYPES: readonly WebhookEndpointEvent['type'][] = ['WebhookEndpointCreated', 'WebhookEndpointDisabled'];

export interface DeliveryScheduledData {
  deliveryId: string;
  endpointId: string;
  accountId: string;
  eventType: WebhookEventType;
  jobId: string;
  /** The exact JSON body that is signed and sent on every attempt. */
  body: string;
  scheduledAt: string;
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
  | { type: 'DeliveryScheduled'; data: DeliveryScheduledData }
  | { type: 'DeliveryAttempted'; data: DeliveryAttemptedData };
export const DELIVERY_EVENT_TYPES: readonly DeliveryEvent['type'][] = ['DeliveryScheduled', 'DeliveryAttempted'];

import type { WebhookEventType } from '@upscaler/contracts';
import type { WebhookEndpointCreatedData } from './webhook.events';

export interface WebhookEndpointState {
  status: 'none' | 'enabled' | 'disabled';
  /** As created, except `secret`: the current signing secret (the latest rotation's). */
  endpoint: WebhookEndpointCreatedData | null;
  disabledAt: string | null;
  disabledReason: 'gone' | 'deleted' | null;
  /**
   * Secret rotation. Optional: read-model rows folded before rotation existed lack them
   * (read them through secretRotatedAt / previousSecretOf).
   */
  secretRotatedAt?: string | null;
  previousSecret?: { secret: string; expiresAt: string } | null;
}

export function initialWebhookEndpointState(): WebhookEndpointState {
  return { status: 'none', endpoint: null, disabledAt: null, disabledReason: null, secretRotatedAt: null, previousSecret: null };
}

/** Whether a finished job's event should be delivered to this endpoint. */
export function endpointWants(state: WebhookEndpointState, eventType: WebhookEventType): boolean {
  return state.status === 'enabled' && state.endpoint !== null && state.endpoint.events.includes(eventType);
}

/**
 * The secrets a delivery made at `now` is signed with: the current one first, then the previous one while its
 * overlap lasts (docs/api.md "Rotating the secret": both signatures, space separated, as Standard Webhooks allows).
 */
export function signingSecrets(state: WebhookEndpointState, now: string): string[] {
  if (state.endpoint === null) return [];
  const previous = state.previousSecret ?? null;
  const keep = previous !== null && Date.parse(previous.expiresAt) > Date.parse(now);
  return keep ? [state.endpoint.secret, previous.secret] : [state.endpoint.secret];
}

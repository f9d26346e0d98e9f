import type { WebhookEndpointCreatedData, WebhookEventType } from '@upscaler/contracts';

export interface WebhookEndpointState {
  status: 'none' | 'enabled' | 'disabled';
  endpoint: WebhookEndpointCreatedData | null;
  disabledAt: string | null;
  disabledReason: 'gone' | 'deleted' | null;
}

export function initialWebhookEndpointState(): WebhookEndpointState {
  return { status: 'none', endpoint: null, disabledAt: null, disabledReason: null };
}

/** Whether a finished job's event should be delivered to this endpoint. */
export function endpointWants(state: WebhookEndpointState, eventType: WebhookEventType): boolean {
  return state.status === 'enabled' && state.endpoint !== null && state.endpoint.events.includes(eventType);
}

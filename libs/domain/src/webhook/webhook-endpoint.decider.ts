import { DomainError, WEBHOOK_EVENT_TYPES, type WebhookEndpointEvent, type WebhookEventType, WEBHOOK_ENDPOINT_EVENT_TYPES } from '@upscaler/contracts';
import type { Decider } from '../decider';
import { canonicalInstant } from '../shared/time';
import type { CreateWebhookEndpoint, DisableWebhookEndpoint, WebhookEndpointCommand } from './webhook-endpoint.commands';
import { initialWebhookEndpointState, type WebhookEndpointState } from './webhook-endpoint.state';

/**
 * A registered webhook endpoint (docs/design.md §4 and 6): created enabled, disabled for good when deleted or
 * when a delivery answers 410 Gone. Disabling twice changes nothing. URL policy (https, SSRF guard)
 * is the api's and the sender's concern, not this lifecycle's.
 */
export const webhookEndpointDecider: Decider<WebhookEndpointState, WebhookEndpointCommand, WebhookEndpointEvent> = {
  eventTypes: WEBHOOK_ENDPOINT_EVENT_TYPES,
  initialState: initialWebhookEndpointState,
  decide,
  evolve,
};

export const WEBHOOK_SECRET_PREFIX = 'whsec_';

function decide(command: WebhookEndpointCommand, state: WebhookEndpointState): WebhookEndpointEvent[] {
  switch (command.type) {
    case 'CreateWebhookEndpoint':
      return create(command, state);
    case 'DisableWebhookEndpoint':
      return disable(command, state);
  }
}

function create({ data }: CreateWebhookEndpoint, state: WebhookEndpointState): WebhookEndpointEvent[] {
  if (state.status !== 'none') throw new DomainError('conflict', `Webhook endpoint ${data.endpointId} already exists.`);
  if (!data.url) throw new DomainError('invalid_request', 'url is required.');
  if (data.events.length === 0) throw new DomainError('invalid_request', 'events must name at least one event type.');
  const unknown = data.events.filter((e) => !(WEBHOOK_EVENT_TYPES as readonly string[]).includes(e));
  if (unknown.length > 0) throw new DomainError('invalid_request', `Unknown event types: ${unknown.join(', ')}.`);
  if (!data.secret.startsWith(WEBHOOK_SECRET_PREFIX)) {
    throw new DomainError('invalid_request', `A webhook secret starts with ${WEBHOOK_SECRET_PREFIX}.`);
  }
  return [
    {
      type: 'WebhookEndpointCreated',
      data: {
        endpointId: data.endpointId,
        accountId: data.accountId,
        url: data.url,
        events: [...new Set<WebhookEventType>(data.events)],
        description: data.description,
        secret: data.secret,
        createdAt: canonicalInstant(data.now),
      },
    },
  ];
}

function disable({ data }: DisableWebhookEndpoint, state: WebhookEndpointState): WebhookEndpointEvent[] {
  const endpoint = state.endpoint;
  if (state.status === 'none' || endpoint === null) throw new DomainError('not_found', 'No such webhook endpoint.');
  if (state.status === 'disabled') return [];
  return [
    {
      type: 'WebhookEndpointDisabled',
      data: { endpointId: endpoint.endpointId, accountId: endpoint.accountId, reason: data.reason, disabledAt: canonicalInstant(data.now) },
    },
  ];
}

function evolve(state: WebhookEndpointState, event: WebhookEndpointEvent): WebhookEndpointState {
  switch (event.type) {
    case 'WebhookEndpointCreated':
      return { status: 'enabled', endpoint: event.data, disabledAt: null, disabledReason: null };
    case 'WebhookEndpointDisabled':
      return { ...state, status: 'disabled', disabledAt: event.data.disabledAt, disabledReason: event.data.reason };
  }
}

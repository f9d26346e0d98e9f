import { DomainError, WEBHOOK_EVENT_TYPES, type WebhookEventType } from '@upscaler/contracts';
import { type WebhookEndpointEvent, WEBHOOK_ENDPOINT_EVENT_TYPES } from './webhook.events';
import { type Decider, addMs, canonicalInstant } from '@upscaler/domain';
import type {
  CreateWebhookEndpoint,
  DisableWebhookEndpoint,
  EnableWebhookEndpoint,
  RotateWebhookEndpointSecret,
  WebhookEndpointCommand,
} from './webhook-endpoint.commands';
import { initialWebhookEndpointState, type WebhookEndpointState } from './webhook-endpoint.state';

/**
 * A registered webhook endpoint (docs/design.md §4 and 6): created enabled; disabled when a delivery answers
 * 410 Gone (`gone`, which its owner may enable again) or when deleted (`deleted`, for good: nothing brings it
 * back). Deleting an endpoint disabled by a 410 records the deletion; any other disabling of a disabled
 * endpoint changes nothing. The signing secret can be rotated with an overlap during which the previous one
 * signs too (docs/api.md "Rotating the secret"). URL policy (https, SSRF guard) is the api's and the sender's
 * concern, not this lifecycle's; so is the per-account cap on enabled endpoints (a read-model count).
 */
export const webhookEndpointDecider: Decider<WebhookEndpointState, WebhookEndpointCommand, WebhookEndpointEvent> = {
  eventTypes: WEBHOOK_ENDPOINT_EVENT_TYPES,
  initialState: initialWebhookEndpointState,
  decide,
  evolve,
};

export const WEBHOOK_SECRET_PREFIX = 'whsec_';
/** The longest overlap a rotation may keep the previous secret for: 7 days. */
export const MAX_SECRET_OVERLAP_SECONDS = 604_800;
/** The overlap when the caller names none: 24 h. */
export const DEFAULT_SECRET_OVERLAP_SECONDS = 86_400;

function decide(command: WebhookEndpointCommand, state: WebhookEndpointState): WebhookEndpointEvent[] {
  switch (command.type) {
    case 'CreateWebhookEndpoint':
      return create(command, state);
    case 'DisableWebhookEndpoint':
      return disable(command, state);
    case 'EnableWebhookEndpoint':
      return enable(command, state);
    case 'RotateWebhookEndpointSecret':
      return rotateSecret(command, state);
  }
}

function create({ data }: CreateWebhookEndpoint, state: WebhookEndpointState): WebhookEndpointEvent[] {
  if (state.status !== 'none') throw new DomainError('conflict', `Webhook endpoint ${data.endpointId} already exists.`);
  if (!data.url) throw new DomainError('invalid_request', 'url is required.');
  if (data.events.length === 0) throw new DomainError('invalid_request', 'events must name at least one event type.');
  const unknown = data.events.filter((e) => !(WEBHOOK_EVENT_TYPES as readonly string[]).includes(e));
  if (unknown.length > 0) throw new DomainError('invalid_request', `Unknown event types: ${unknown.join(', ')}.`);
  assertSecretShape(data.secret);
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
  const endpoint = existing(state);
  if (state.status === 'disabled') {
    // A deletion is final and must be recorded even over a 410's disabling, or enable could bring a deleted
    // endpoint back; a 410 after either changes nothing.
    if (data.reason === 'gone' || state.disabledReason === 'deleted') return [];
  }
  return [
    {
      type: 'WebhookEndpointDisabled',
      data: { endpointId: endpoint.endpointId, accountId: endpoint.accountId, reason: data.reason, disabledAt: canonicalInstant(data.now) },
    },
  ];
}

function enable({ data }: EnableWebhookEndpoint, state: WebhookEndpointState): WebhookEndpointEvent[] {
  const endpoint = existing(state);
  assertNotDeleted(state);
  if (state.status === 'enabled') return [];
  return [
    {
      type: 'WebhookEndpointEnabled',
      data: { endpointId: endpoint.endpointId, accountId: endpoint.accountId, enabledAt: canonicalInstant(data.now) },
    },
  ];
}

function rotateSecret({ data }: RotateWebhookEndpointSecret, state: WebhookEndpointState): WebhookEndpointEvent[] {
  const endpoint = existing(state);
  assertNotDeleted(state);
  const overlap = data.overlapSeconds;
  if (!(Number.isInteger(overlap) && overlap >= 0 && overlap <= MAX_SECRET_OVERLAP_SECONDS)) {
    throw new DomainError('invalid_request', `overlap_seconds must be an integer from 0 to ${MAX_SECRET_OVERLAP_SECONDS}.`);
  }
  assertSecretShape(data.secret);
  const now = canonicalInstant(data.now);
  // Only the secret current until now is kept: a second rotation within an overlap drops the oldest one.
  const keep = overlap > 0;
  return [
    {
      type: 'WebhookEndpointSecretRotated',
      data: {
        endpointId: endpoint.endpointId,
        accountId: endpoint.accountId,
        secret: data.secret,
        previousSecret: keep ? endpoint.secret : null,
        previousSecretExpiresAt: keep ? addMs(now, overlap * 1_000) : null,
        rotatedAt: now,
      },
    },
  ];
}

function existing(state: WebhookEndpointState) {
  if (state.status === 'none' || state.endpoint === null) throw new DomainError('not_found', 'No such webhook endpoint.');
  return state.endpoint;
}

function assertNotDeleted(state: WebhookEndpointState): void {
  if (state.status === 'disabled' && state.disabledReason === 'deleted') {
    throw new DomainError('webhook_endpoint_deleted', `Webhook endpoint ${state.endpoint!.endpointId} was deleted; register a new one.`);
  }
}

function assertSecretShape(secret: string): void {
  if (!secret.startsWith(WEBHOOK_SECRET_PREFIX)) {
    throw new DomainError('invalid_request', `A webhook secret starts with ${WEBHOOK_SECRET_PREFIX}.`);
  }
}

function evolve(state: WebhookEndpointState, event: WebhookEndpointEvent): WebhookEndpointState {
  switch (event.type) {
    case 'WebhookEndpointCreated':
      return {
        status: 'enabled',
        endpoint: event.data,
        disabledAt: null,
        disabledReason: null,
        secretRotatedAt: null,
        previousSecret: null,
      };
    case 'WebhookEndpointDisabled':
      return { ...state, status: 'disabled', disabledAt: event.data.disabledAt, disabledReason: event.data.reason };
    case 'WebhookEndpointEnabled':
      return { ...state, status: 'enabled', disabledAt: null, disabledReason: null };
    case 'WebhookEndpointSecretRotated': {
      const { secret, previousSecret, previousSecretExpiresAt, rotatedAt } = event.data;
      return {
        ...state,
        endpoint: state.endpoint && { ...state.endpoint, secret },
        secretRotatedAt: rotatedAt,
        previousSecret:
          previousSecret !== null && previousSecretExpiresAt !== null
            ? { secret: previousSecret, expiresAt: previousSecretExpiresAt }
            : null,
      };
    }
  }
}

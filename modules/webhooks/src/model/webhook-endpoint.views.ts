import { DomainError } from '@upscaler/contracts';
import { type WebhookEndpointView } from './webhook.views';
import type { WebhookEndpointState } from './webhook-endpoint.state';

/**
 * docs/design.md §6, webhook endpoint object. The secret is included only with `includeSecret` (the creation and
 * the rotation answers, the one time each secret is shown). `previous_secret_expires_at` is what the last
 * rotation recorded, past or not (a view reads no clock).
 */
export function toWebhookEndpointView(state: WebhookEndpointState, options: { includeSecret?: boolean } = {}): WebhookEndpointView {
  const e = state.endpoint;
  if (state.status === 'none' || e === null) throw new DomainError('not_found', 'No such webhook endpoint.');
  const view: WebhookEndpointView = {
    id: e.endpointId,
    object: 'webhook_endpoint',
    url: e.url,
    events: [...e.events],
    description: e.description,
    status: state.status,
    created_at: e.createdAt,
    disabled_reason: state.status === 'disabled' ? state.disabledReason : null,
    secret_rotated_at: state.secretRotatedAt ?? null,
    previous_secret_expires_at: state.previousSecret?.expiresAt ?? null,
  };
  if (options.includeSecret) view.secret = e.secret;
  return view;
}

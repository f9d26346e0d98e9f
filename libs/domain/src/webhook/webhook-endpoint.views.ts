import { DomainError, type WebhookEndpointView } from '@upscaler/contracts';
import type { WebhookEndpointState } from './webhook-endpoint.state';

/**
 * docs/design.md §6, webhook endpoint object. The secret is included only with `includeSecret` (the creation
 * answer, the one time it is shown).
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
  };
  if (options.includeSecret) view.secret = e.secret;
  return view;
}

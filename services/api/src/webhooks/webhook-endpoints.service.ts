import { Inject, Injectable } from '@nestjs/common';
import { DomainError, WEBHOOK_EVENT_TYPES, isId, newId, streams, type WebhookEndpointView } from '@upscaler/contracts';
import {
  toDeliveryAttemptViews,
  toWebhookEndpointView,
  webhookEndpointDecider,
  type DeliveryState,
  type WebhookEndpointState,
} from '@upscaler/domain';
import { handleCommand, type EventStore } from '@upscaler/eventstore';
import { generateWebhookSecret } from '@upscaler/net';
import { EVENT_STORE, CLOCK, type Clock, CONFIG } from '@upscaler/runtime';
import { parseBody } from '../http/parse-body';
import { parseWith } from '../openapi/zod';
import { CreateEndpointBody, DELIVERIES_QUERY_ERRORS, DeliveriesQuery } from './webhooks.schemas';
import { assertWebhookUrlAllowed } from './webhook-url.check';
import type { AppConfig } from '@upscaler/platform';
import { ReadModelRepository } from '@upscaler/read-models';

/** Webhook endpoints (docs/design.md §6): `webhook-…` streams, secrets `whsec_…` shown once. */
@Injectable()
export class WebhookEndpointsService {
  constructor(
    @Inject(EVENT_STORE) private readonly store: EventStore,
    @Inject(CLOCK) private readonly clock: Clock,
    @Inject(CONFIG) private readonly config: AppConfig,
    private readonly readModels: ReadModelRepository,
  ) {}

  async create(accountId: string, body: unknown): Promise<WebhookEndpointView> {
    const input = parseBody(CreateEndpointBody, body);
    // Same SSRF rules as image URLs: https only, and no private address when it resolves now.
    await assertWebhookUrlAllowed(input.url, { allowPrivateNetworks: this.config.allowPrivateNetworks });
    await this.assertRoomForAnotherEndpoint(accountId);
    const endpointId = newId('we');
    const secret = generateWebhookSecret();
    const { newState } = await handleCommand(this.store, streams.webhookEndpoint(endpointId), webhookEndpointDecider, {
      type: 'CreateWebhookEndpoint',
      data: {
        endpointId,
        accountId,
        url: input.url,
        events: input.events ? [...new Set(input.events)] : [...WEBHOOK_EVENT_TYPES],
        description: input.description ?? null,
        secret,
        now: this.clock.now().toISOString(),
      },
    });
    return { ...toWebhookEndpointView(newState as WebhookEndpointState), secret };
  }

  /**
   * docs/api.md "Limits": at most UPSCALE_MAX_WEBHOOK_ENDPOINTS_PER_ACCOUNT enabled endpoints (deleted ones stay
   * listed as disabled and do not count). Counted from the read model, as for API keys: creates racing each
   * other can pass the limit together, by at most the number of them.
   */
  private async assertRoomForAnotherEndpoint(accountId: string): Promise<void> {
    const max = this.config.maxWebhookEndpointsPerAccount;
    const rows = await this.readModels.all<WebhookEndpointState>('webhook', { accountId });
    const enabled = rows.filter((r) => r.state.status === 'enabled').length;
    if (enabled >= max) {
      throw new DomainError(
        'webhook_endpoint_limit_reached',
        `The account already has ${enabled} enabled webhook endpoints, the most it may have; delete one first.`,
        { max },
      );
    }
  }

  async list(accountId: string) {
    const rows = await this.readModels.all<WebhookEndpointState>('webhook', { accountId });
    return { object: 'list' as const, data: rows.map((r) => toWebhookEndpointView(r.state)), has_more: false, next_cursor: null };
  }

  async get(accountId: string, endpointId: string): Promise<WebhookEndpointView> {
    return toWebhookEndpointView(await this.load(accountId, endpointId));
  }

  async remove(accountId: string, endpointId: string): Promise<WebhookEndpointView> {
    await this.load(accountId, endpointId);
    const { newState } = await handleCommand(this.store, streams.webhookEndpoint(endpointId), webhookEndpointDecider, {
      type: 'DisableWebhookEndpoint',
      data: { reason: 'deleted', now: this.clock.now().toISOString() },
    });
    return toWebhookEndpointView(newState as WebhookEndpointState);
  }

  /** Every attempt of every delivery to this endpoint, newest first (delivery ids are not time-ordered). */
  async deliveries(accountId: string, endpointId: string, q: { limit?: unknown }) {
    await this.load(accountId, endpointId);
    const { limit } = parseWith(DeliveriesQuery, q, DELIVERIES_QUERY_ERRORS);
    const rows = await this.readModels.all<DeliveryState>('delivery', { parentId: endpointId });
    const attempts = rows
      .flatMap((r) => toDeliveryAttemptViews(r.state))
      .sort((a, b) => (a.attempted_at < b.attempted_at ? 1 : a.attempted_at > b.attempted_at ? -1 : b.attempt - a.attempt));
    return { object: 'list' as const, data: attempts.slice(0, limit), has_more: attempts.length > limit, next_cursor: null };
  }

  private async load(accountId: string, endpointId: string): Promise<WebhookEndpointState> {
    if (!isId(endpointId, 'we')) throw new DomainError('not_found', 'No webhook endpoint with that id.');
    const row = await this.readModels.byStream<WebhookEndpointState>(streams.webhookEndpoint(endpointId));
    if (!row || row.accountId !== accountId) throw new DomainError('not_found', 'No webhook endpoint with that id.');
    return row.state;
  }
}

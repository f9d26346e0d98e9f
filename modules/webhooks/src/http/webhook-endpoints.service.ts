import { Inject, Injectable } from '@nestjs/common';
import { DomainError, WEBHOOK_EVENT_TYPES, isId, newId, streams } from '@upscaler/contracts';
import { type WebhookDeliveryView, type WebhookEndpointView } from '../model/webhook.views';
import { deliveryDecider } from '../model/delivery.decider';
import { scheduleRedelivery, scheduleTestDelivery } from '../model/manual-delivery';
import { toDeliveryAttemptViews, toWebhookDeliveryView } from '../model/delivery.views';
import { toWebhookEndpointView } from '../model/webhook-endpoint.views';
import { type DeliveryState } from '../model/delivery.state';
import { type ScheduleDelivery } from '../model/delivery.commands';
import { type WebhookEndpointState } from '../model/webhook-endpoint.state';
import { DeliveryCommandHandler, WebhookEndpointCommandHandler } from '../webhook.command-handlers';
import { generateWebhookSecret } from '../signing/webhook-signing';
import { CONFIG } from '@upscaler/runtime';
import { parseWith } from '@upscaler/http-api';
import {
  CreateEndpointBody,
  DELIVERIES_QUERY_ERRORS,
  DeliveriesQuery,
  ROTATE_SECRET_BODY_ERRORS,
  RotateSecretBody,
} from './webhooks.schemas';
import { assertWebhookUrlAllowed } from './webhook-url.check';
import type { AppConfig } from '@upscaler/config';
import { ReadModelRepository } from '@upscaler/projections';
import { WEBHOOK_SETTINGS, type WebhookSettings } from '../webhooks.config';

/** Webhook endpoints (docs/design.md §6): `webhook-…` streams, secrets `whsec_…` shown once. */
@Injectable()
export class WebhookEndpointsService {
  constructor(
    private readonly endpointCommands: WebhookEndpointCommandHandler,
    private readonly deliveryCommands: DeliveryCommandHandler,
    @Inject(CONFIG) private readonly config: AppConfig,
    @Inject(WEBHOOK_SETTINGS) private readonly settings: WebhookSettings,
    private readonly readModels: ReadModelRepository,
  ) {}

  async create(accountId: string, body: unknown): Promise<WebhookEndpointView> {
    const input = parseWith(CreateEndpointBody, body ?? {});
    // Same SSRF rules as image URLs: https only, and no private address when it resolves now.
    await assertWebhookUrlAllowed(input.url, { allowPrivateNetworks: this.config.allowPrivateNetworks });
    await this.assertRoomForAnotherEndpoint(accountId);
    const endpointId = newId('we');
    const secret = generateWebhookSecret();
    const { newState } = await this.endpointCommands.handle(endpointId, {
      type: 'CreateWebhookEndpoint',
      data: {
        endpointId,
        accountId,
        url: input.url,
        events: input.events ? [...new Set(input.events)] : [...WEBHOOK_EVENT_TYPES],
        description: input.description ?? null,
        secret,
        now: this.endpointCommands.now().toISOString(),
      },
    });
    return { ...toWebhookEndpointView(newState), secret };
  }

  /**
   * docs/api.md "Limits": at most UPSCALE_MAX_WEBHOOK_ENDPOINTS_PER_ACCOUNT enabled endpoints (deleted ones stay
   * listed as disabled and do not count). Counted from the read model, as for API keys: creates racing each
   * other can pass the limit together, by at most the number of them.
   */
  private async assertRoomForAnotherEndpoint(accountId: string): Promise<void> {
    const max = this.settings.maxEndpointsPerAccount;
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
    const { newState } = await this.endpointCommands.handle(endpointId, {
      type: 'DisableWebhookEndpoint',
      data: { reason: 'deleted', now: this.endpointCommands.now().toISOString() },
    });
    return toWebhookEndpointView(newState);
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

  /**
   * docs/api.md "rotate_secret": a new secret, shown once in the answer; the previous one keeps signing for
   * overlap_seconds (docs/design.md §4, webhook ergonomics).
   */
  async rotateSecret(accountId: string, endpointId: string, body: unknown): Promise<WebhookEndpointView> {
    const input = parseWith(RotateSecretBody, body ?? {}, ROTATE_SECRET_BODY_ERRORS);
    await this.load(accountId, endpointId);
    const { newState } = await this.endpointCommands.handle(endpointId, {
      type: 'RotateWebhookEndpointSecret',
      data: { secret: generateWebhookSecret(), overlapSeconds: input.overlap_seconds, now: this.endpointCommands.now().toISOString() },
    });
    return toWebhookEndpointView(newState, { includeSecret: true });
  }

  /** docs/api.md "enable": an endpoint a 410 disabled takes deliveries again, within the per-account cap. */
  async enable(accountId: string, endpointId: string): Promise<WebhookEndpointView> {
    const state = await this.load(accountId, endpointId);
    // Only an endpoint that would become enabled needs room (enabling an enabled one is a no-op, a deleted one
    // is refused by the decider).
    if (state.status === 'disabled' && state.disabledReason === 'gone') await this.assertRoomForAnotherEndpoint(accountId);
    const { newState } = await this.endpointCommands.handle(endpointId, {
      type: 'EnableWebhookEndpoint',
      data: { now: this.endpointCommands.now().toISOString() },
    });
    return toWebhookEndpointView(newState);
  }

  /** docs/api.md "test": one `webhook.test` delivery, sent by the webhooks service like any other. */
  async sendTestEvent(accountId: string, endpointId: string): Promise<WebhookDeliveryView> {
    const endpoint = await this.load(accountId, endpointId);
    return this.schedule(scheduleTestDelivery(endpoint, { deliveryId: newId('dlv'), now: this.endpointCommands.now().toISOString() }));
  }

  /** docs/api.md "redeliver": any delivery of this endpoint, sent again under its original webhook-id. */
  async redeliver(accountId: string, endpointId: string, deliveryId: string): Promise<WebhookDeliveryView> {
    const endpoint = await this.load(accountId, endpointId);
    const row = isId(deliveryId, 'dlv') ? await this.readModels.byStream<DeliveryState>(streams.delivery(deliveryId)) : null;
    // Another account's delivery is as unknown as none (scheduleRedelivery also checks it is this endpoint's).
    const original = row && row.accountId === accountId ? row.state : deliveryDecider.initialState();
    return this.schedule(
      scheduleRedelivery(endpoint, original, { deliveryId: newId('dlv'), now: this.endpointCommands.now().toISOString() }),
    );
  }

  private async schedule(command: ScheduleDelivery): Promise<WebhookDeliveryView> {
    const { newState } = await this.deliveryCommands.handle(command.data.deliveryId, command);
    return toWebhookDeliveryView(newState);
  }

  private async load(accountId: string, endpointId: string): Promise<WebhookEndpointState> {
    if (!isId(endpointId, 'we')) throw new DomainError('not_found', 'No webhook endpoint with that id.');
    const row = await this.readModels.byStream<WebhookEndpointState>(streams.webhookEndpoint(endpointId));
    if (!row || row.accountId !== accountId) throw new DomainError('not_found', 'No webhook endpoint with that id.');
    return row.state;
  }
}

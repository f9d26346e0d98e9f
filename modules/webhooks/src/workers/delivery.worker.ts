import { Inject, Injectable, OnApplicationBootstrap, OnApplicationShutdown } from '@nestjs/common';
import { randomInt } from 'node:crypto';
import { asEvents, streams } from '@upscaler/contracts';
import { deliveryMessageId } from '../model/webhook.events';
import { foldEvents } from '@upscaler/domain';
import { DEFAULT_RETRY_SCHEDULE_MS } from '../model/retry-schedule';
import { deliveryDecider } from '../model/delivery.decider';
import { isDeliveryDue, type DeliveryState } from '../model/delivery.state';
import { signingSecrets, type WebhookEndpointState } from '../model/webhook-endpoint.state';
import { WebhookEndpointCommandHandler } from '../webhook.command-handlers';
import { WrongExpectedVersionError, type EventStore } from '@upscaler/eventstore';
import { signWebhook } from '../signing/webhook-signing';
import { eventMetadata, EVENT_STORE, CLOCK, type Clock, CONFIG, LOGGER, Metrics } from '@upscaler/runtime';
import { WebhookMetrics } from '../webhooks.metrics';
import { WEBHOOK_SETTINGS, type WebhookSettings } from '../webhooks.config';
import { inSpan } from '@upscaler/tracing';
import type { AppConfig, Logger } from '@upscaler/config';
import { ReadModelRepository } from '@upscaler/projections';
import { pickDeliveries, type DueDelivery } from './delivery-shares';
import { WEBHOOK_SENDER, type WebhookSender } from './webhook-sender.port';

interface Attempt extends DueDelivery {
  done: Promise<void>;
}

/**
 * Attempts due deliveries: signs per Standard Webhooks, POSTs under the SSRF guard, records the
 * attempt (retry with exponential backoff and jitter for about three days; a 410 disables the
 * endpoint). Each attempt is recorded against the delivery version it read, so two workers never
 * record the same attempt twice. Attempts run side by side and a tick does not wait for them; each
 * endpoint and each account gets at most its share of them (settings.concurrency, docs/operations.md
 * "Webhook delivery scheduling"), so a receiver that hangs until UPSCALE_WEBHOOK_TIMEOUT_MS, however many
 * deliveries it has waiting, holds up only its own.
 */
@Injectable()
export class DeliveryWorker implements OnApplicationBootstrap, OnApplicationShutdown {
  private timer: NodeJS.Timeout | undefined;
  private busy = false;
  private ticking: Promise<void> = Promise.resolve();
  /** Attempts under way, by delivery stream: a due delivery is never attempted twice at once. */
  private readonly inflight = new Map<string, Attempt>();

  private readonly series: WebhookMetrics;

  constructor(
    @Inject(EVENT_STORE) private readonly store: EventStore,
    @Inject(CLOCK) private readonly clock: Clock,
    private readonly endpointCommands: WebhookEndpointCommandHandler,
    @Inject(CONFIG) private readonly config: AppConfig,
    @Inject(WEBHOOK_SETTINGS) private readonly settings: WebhookSettings,
    @Inject(LOGGER) private readonly logger: Logger,
    @Inject(WEBHOOK_SENDER) private readonly send: WebhookSender,
    private readonly readModels: ReadModelRepository,
    metrics: Metrics,
  ) {
    this.series = metrics.section(WebhookMetrics);
  }

  onApplicationBootstrap(): void {
    this.timer = setInterval(() => {
      if (this.busy) return;
      this.busy = true;
      this.ticking = this.tick()
        .then(() => undefined)
        .catch((err) => this.logger.error({ err }, 'webhook delivery tick failed'))
        .finally(() => (this.busy = false));
    }, 250);
    this.timer.unref();
  }

  async onApplicationShutdown(): Promise<void> {
    if (this.timer) clearInterval(this.timer);
    await this.ticking;
    await Promise.all([...this.inflight.values()].map((a) => a.done));
  }

  /** Starts an attempt for each due delivery within its shares and not already under way; does not wait for them. */
  async tick(): Promise<number> {
    const shares = this.settings.concurrency;
    if (this.inflight.size >= shares.total) return 0;
    const now = this.clock.now();
    // Every attempt under way may come back (it stays due until recorded): room for those, then a full page. One
    // more than a share per endpoint and account tells a share that is full with more waiting.
    const due = await this.readModels.dueInTurns<DeliveryState>('delivery', now, {
      perParent: shares.perEndpoint + 1,
      perAccount: shares.perAccount + 1,
      limit: shares.total + this.inflight.size,
    });
    const rows = new Map(due.map((row) => [row.streamId, row]));
    const pick = pickDeliveries(
      due.map((row) => ({ streamId: row.streamId, endpointId: row.state.delivery!.endpointId, accountId: row.state.delivery!.accountId })),
      this.inflight.values(),
      shares,
    );
    this.series.sharesFull.set({ share: 'endpoint' }, pick.full.endpoints);
    this.series.sharesFull.set({ share: 'account' }, pick.full.accounts);
    for (const d of pick.start) {
      const state = rows.get(d.streamId)!.state;
      const dueAt = state.nextAttemptAt ? Date.parse(state.nextAttemptAt) : now.getTime();
      this.series.lag.observe(Math.max(0, now.getTime() - dueAt) / 1000);
      const done = this.attempt(d.streamId, state)
        .catch((err) => this.logger.error({ err, stream: d.streamId }, 'webhook delivery attempt failed'))
        .finally(() => {
          this.inflight.delete(d.streamId);
          this.series.inFlight.set(this.inflight.size);
        });
      this.inflight.set(d.streamId, { ...d, done });
    }
    this.series.inFlight.set(this.inflight.size);
    return pick.start.length;
  }

  private async attempt(stream: string, d: DeliveryState): Promise<void> {
    // The delivery continues the trace of the job that caused it (its DeliveryScheduled metadata).
    const scheduled = (await this.store.readStream(stream))[0];
    await inSpan(
      'webhooks.deliver',
      { 'upscaler.delivery_id': d.delivery!.deliveryId, ...(d.delivery!.jobId === null ? {} : { 'upscaler.job_id': d.delivery!.jobId }) },
      scheduled?.metadata,
      () => this.attemptInSpan(stream, d),
    );
  }

  private async attemptInSpan(stream: string, d: DeliveryState): Promise<void> {
    const delivery = d.delivery!;
    // The row came from the read model, read before an attempt that ended meanwhile may have been
    // recorded: only the stream says whether the delivery is still due.
    const history = await this.store.readStream(stream);
    const current = foldEvents(deliveryDecider, asEvents(deliveryDecider.eventTypes, history));
    if (!isDeliveryDue(current, this.clock.now().toISOString())) return;
    const endpointRow = await this.readModels.byStream<WebhookEndpointState>(streams.webhookEndpoint(delivery.endpointId));
    const endpoint = endpointRow?.state.status === 'enabled' ? endpointRow.state.endpoint : null;
    const now = this.clock.now();
    // Test events and re-deliveries have no job: the delivery itself correlates their events.
    const correlationId = delivery.jobId ?? delivery.deliveryId;
    let result: { statusCode: number | null; error: string | null; durationMs: number };
    if (!endpoint) {
      result = { statusCode: null, error: 'endpoint disabled', durationMs: 0 };
    } else {
      // webhook-id is the message id: the same on every retry and on a re-delivery, so receivers can
      // deduplicate. During a secret rotation's overlap both secrets sign (docs/api.md "Rotating the secret").
      const headers = {
        ...signWebhook(signingSecrets(endpointRow!.state, now.toISOString()), deliveryMessageId(delivery), now, delivery.body),
        'content-type': 'application/json',
        'user-agent': 'upscaler-webhooks/1',
      };
      result = await this.send(endpoint.url, headers, delivery.body, {
        timeoutMs: this.settings.timeoutMs,
        allowPrivateNetworks: this.config.allowPrivateNetworks,
      });
    }
    try {
      // Recorded against the version read before sending: if another replica recorded an attempt
      // meanwhile, this append fails and this (duplicate, same webhook-id) try is not counted twice.
      const decided = deliveryDecider.decide(
        {
          type: 'RecordAttempt',
          data: {
            statusCode: result.statusCode,
            error: result.error,
            durationMs: Math.round(result.durationMs),
            now: this.clock.now().toISOString(),
            jitter: randomInt(0, 1_000_000) / 1_000_000,
            // An endpoint deleted or disabled meanwhile: the delivery is abandoned at once.
            schedule: endpoint ? (this.settings.retryScheduleMs ?? DEFAULT_RETRY_SCHEDULE_MS) : [],
          },
        },
        current,
      );
      const appended = await this.store.append(
        stream,
        history.length,
        decided.map((e) => ({ ...e, metadata: eventMetadata('webhooks', { correlationId }) })),
      );
      const newState = foldEvents(deliveryDecider, asEvents(deliveryDecider.eventTypes, appended.events), current);
      if (newState.status === 'endpoint_gone' && endpoint) {
        await this.endpointCommands.handle(delivery.endpointId, {
          type: 'DisableWebhookEndpoint',
          data: { reason: 'gone', now: this.clock.now().toISOString() },
        });
      }
    } catch (e) {
      if (e instanceof WrongExpectedVersionError) return; // another worker recorded this attempt
      throw e;
    }
  }
}

import { Inject, Injectable, OnApplicationBootstrap, OnApplicationShutdown } from '@nestjs/common';
import { randomInt } from 'node:crypto';
import { asEvents, deliveryMessageId, streams } from '@upscaler/contracts';
import {
  DEFAULT_RETRY_SCHEDULE_MS,
  deliveryDecider,
  isDeliveryDue,
  signingSecrets,
  webhookEndpointDecider,
  type DeliveryState,
  type WebhookEndpointState,
  foldEvents,
} from '@upscaler/domain';
import { handleCommand, WrongExpectedVersionError, type EventStore } from '@upscaler/eventstore';
import { sendWebhook, signWebhook } from '@upscaler/net';
import { eventMetadata, EVENT_STORE, CLOCK, type Clock, CONFIG, LOGGER } from '@upscaler/runtime';
import { inSpan } from '@upscaler/tracing';
import type { AppConfig, Logger } from '@upscaler/platform';
import { ReadModelRepository } from '@upscaler/read-models';

/** At most this many attempts at once (each waits at most UPSCALE_WEBHOOK_TIMEOUT_MS). */
const MAX_CONCURRENT_ATTEMPTS = 50;

/**
 * Attempts due deliveries: signs per Standard Webhooks, POSTs under the SSRF guard, records the
 * attempt (retry with exponential backoff and jitter for about three days; a 410 disables the
 * endpoint). Each attempt is recorded against the delivery version it read, so two workers never
 * record the same attempt twice. Attempts run side by side and a tick does not wait for them: a
 * receiver that answers slowly (up to UPSCALE_WEBHOOK_TIMEOUT_MS) must not hold up every other
 * account's deliveries.
 */
@Injectable()
export class DeliveryWorker implements OnApplicationBootstrap, OnApplicationShutdown {
  private timer: NodeJS.Timeout | undefined;
  private busy = false;
  private ticking: Promise<void> = Promise.resolve();
  /** Attempts under way, by delivery stream: a due delivery is never attempted twice at once. */
  private readonly inflight = new Map<string, Promise<void>>();

  constructor(
    @Inject(EVENT_STORE) private readonly store: EventStore,
    @Inject(CLOCK) private readonly clock: Clock,
    @Inject(CONFIG) private readonly config: AppConfig,
    @Inject(LOGGER) private readonly logger: Logger,
    private readonly readModels: ReadModelRepository,
  ) {}

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
    await Promise.all(this.inflight.values());
  }

  /** Starts an attempt for each due delivery not already under way; does not wait for them. */
  async tick(): Promise<number> {
    const room = MAX_CONCURRENT_ATTEMPTS - this.inflight.size;
    if (room <= 0) return 0;
    const due = await this.readModels.due<DeliveryState>('delivery', this.clock.now(), room + this.inflight.size);
    const fresh = due.filter((row) => !this.inflight.has(row.streamId)).slice(0, room);
    for (const row of fresh) {
      const running = this.attempt(row.streamId, row.state)
        .catch((err) => this.logger.error({ err, stream: row.streamId }, 'webhook delivery attempt failed'))
        .finally(() => this.inflight.delete(row.streamId));
      this.inflight.set(row.streamId, running);
    }
    return fresh.length;
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
      result = await sendWebhook(endpoint.url, headers, delivery.body, {
        timeoutMs: this.config.webhookTimeoutMs,
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
            schedule: endpoint ? (this.config.webhookRetryScheduleMs ?? DEFAULT_RETRY_SCHEDULE_MS) : [],
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
        await handleCommand(this.store, streams.webhookEndpoint(delivery.endpointId), webhookEndpointDecider, {
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

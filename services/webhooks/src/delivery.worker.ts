import { Inject, Injectable, OnApplicationBootstrap, OnApplicationShutdown } from '@nestjs/common';
import { randomInt } from 'node:crypto';
import { streams } from '@upscaler/contracts';
import {
  DEFAULT_RETRY_SCHEDULE_MS,
  deliveryDecider,
  webhookEndpointDecider,
  type DeliveryState,
  type WebhookEndpointState,
} from '@upscaler/domain';
import { handleCommand, WrongExpectedVersionError } from '@upscaler/eventstore';
import { sendWebhook, signWebhook } from '@upscaler/net';
import { RUNTIME, type Runtime } from '@upscaler/runtime';

/**
 * Attempts due deliveries: signs per Standard Webhooks, POSTs under the SSRF guard, records the
 * attempt (retry with exponential backoff and jitter for about three days; a 410 disables the
 * endpoint). Each attempt is recorded against the delivery version it read, so two workers never
 * record the same attempt twice.
 */
@Injectable()
export class DeliveryWorker implements OnApplicationBootstrap, OnApplicationShutdown {
  private timer: NodeJS.Timeout | undefined;
  private busy = false;
  private inflight: Promise<void> = Promise.resolve();

  constructor(@Inject(RUNTIME) private readonly rt: Runtime) {}

  onApplicationBootstrap(): void {
    this.timer = setInterval(() => {
      if (this.busy) return;
      this.busy = true;
      this.inflight = this.tick()
        .then(() => undefined)
        .catch((err) => this.rt.logger.error({ err }, 'webhook delivery tick failed'))
        .finally(() => (this.busy = false));
    }, 250);
    this.timer.unref();
  }

  async onApplicationShutdown(): Promise<void> {
    if (this.timer) clearInterval(this.timer);
    await this.inflight;
  }

  async tick(): Promise<number> {
    const due = await this.rt.readModels.due<DeliveryState>('delivery', this.rt.clock.now(), 20);
    await Promise.all(due.map((row) => this.attempt(row.streamId, row.state)));
    return due.length;
  }

  private async attempt(stream: string, d: DeliveryState): Promise<void> {
    const delivery = d.delivery!;
    const endpointRow = await this.rt.readModels.byStream<WebhookEndpointState>(streams.webhookEndpoint(delivery.endpointId));
    const endpoint = endpointRow?.state.status === 'enabled' ? endpointRow.state.endpoint : null;
    const now = this.rt.clock.now();
    let result: { statusCode: number | null; error: string | null; durationMs: number };
    if (!endpoint) {
      result = { statusCode: null, error: 'endpoint disabled', durationMs: 0 };
    } else {
      // webhook-id is the delivery id: the same on every retry, so receivers can deduplicate.
      const headers = {
        ...signWebhook(endpoint.secret, delivery.deliveryId, now, delivery.body),
        'content-type': 'application/json',
        'user-agent': 'upscaler-webhooks/1',
      };
      result = await sendWebhook(endpoint.url, headers, delivery.body, {
        timeoutMs: this.rt.config.webhookTimeoutMs,
        allowPrivateNetworks: this.rt.config.allowPrivateNetworks,
      });
    }
    try {
      const { newState, newEvents } = await handleCommand(
        this.rt.store,
        stream,
        deliveryDecider,
        {
          type: 'RecordAttempt',
          data: {
            statusCode: result.statusCode,
            error: result.error,
            durationMs: Math.round(result.durationMs),
            now: this.rt.clock.now().toISOString(),
            jitter: randomInt(0, 1_000_000) / 1_000_000,
            // An endpoint deleted or disabled meanwhile: the delivery is abandoned at once.
            schedule: endpoint ? (this.rt.config.webhookRetryScheduleMs ?? DEFAULT_RETRY_SCHEDULE_MS) : [],
          },
        },
        { retries: 0 },
      );
      await this.rt.projector.apply(newEvents);
      if ((newState as DeliveryState).status === 'endpoint_gone' && endpoint) {
        const disabled = await handleCommand(this.rt.store, streams.webhookEndpoint(delivery.endpointId), webhookEndpointDecider, {
          type: 'DisableWebhookEndpoint',
          data: { reason: 'gone', now: this.rt.clock.now().toISOString() },
        });
        await this.rt.projector.apply(disabled.newEvents);
      }
    } catch (e) {
      if (e instanceof WrongExpectedVersionError) return; // another worker recorded this attempt
      throw e;
    }
  }
}

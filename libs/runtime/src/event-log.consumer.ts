import { Inject, type OnApplicationBootstrap, type OnApplicationShutdown } from '@nestjs/common';
import type { StoredEvent } from '@upscaler/contracts';
import type { EventSubscription, EventTransport, RunningSubscription } from '@upscaler/messaging';
import { Readiness } from './readiness';
import { TRANSPORT } from './tokens';

/**
 * A durable consumer of the event log that lives as long as the Nest application: subscribes once the
 * application has started (every provider is constructed, so handlers may use any of them), counts in
 * the service's readiness while its subscription is alive, and stops on shutdown after the handler in
 * flight returns. Subclasses name the consumer group and categories and implement an idempotent
 * `handle` (delivery is at least once).
 */
export abstract class EventLogConsumer implements OnApplicationBootstrap, OnApplicationShutdown {
  @Inject(TRANSPORT) private readonly transport!: EventTransport;
  @Inject(Readiness) private readonly readiness!: Readiness;
  private subscription: RunningSubscription | undefined;

  protected constructor(private readonly group: Omit<EventSubscription, 'handle'>) {}

  abstract handle(event: StoredEvent): Promise<void>;

  async onApplicationBootstrap(): Promise<void> {
    this.subscription = await this.transport.subscribe({ ...this.group, handle: (event) => this.handle(event) });
    this.readiness.register(`consumer ${this.group.consumer}`, async () => {
      const health = this.subscription?.health();
      if (health && !health.ok) throw new Error(health.reason);
    });
  }

  async onApplicationShutdown(): Promise<void> {
    await this.stopConsuming();
  }

  protected async stopConsuming(): Promise<void> {
    await this.subscription?.stop();
  }
}

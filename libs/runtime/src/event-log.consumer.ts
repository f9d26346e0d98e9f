import type { OnApplicationBootstrap, OnApplicationShutdown } from '@nestjs/common';
import type { StoredEvent } from '@upscaler/contracts';
import type { EventSubscription, RunningSubscription } from '@upscaler/messaging';
import type { Runtime } from './runtime';

/**
 * A durable consumer of the event log that lives as long as the Nest application: subscribes once the
 * application has started (every provider is constructed, so handlers may use any of them) and stops
 * its subscription on shutdown, after the handler in flight returns. Subclasses name the consumer
 * group and categories and implement an idempotent `handle` (delivery is at least once).
 */
export abstract class EventLogConsumer implements OnApplicationBootstrap, OnApplicationShutdown {
  private subscription: RunningSubscription | undefined;

  protected constructor(
    protected readonly rt: Runtime,
    private readonly group: Omit<EventSubscription, 'handle'>,
  ) {}

  abstract handle(event: StoredEvent): Promise<void>;

  async onApplicationBootstrap(): Promise<void> {
    this.subscription = await this.rt.transport.subscribe({ ...this.group, handle: (event) => this.handle(event) });
  }

  async onApplicationShutdown(): Promise<void> {
    await this.stopConsuming();
  }

  protected async stopConsuming(): Promise<void> {
    await this.subscription?.stop();
  }
}

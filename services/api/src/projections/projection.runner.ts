import { Inject, Injectable, OnApplicationBootstrap, OnApplicationShutdown } from '@nestjs/common';
import type { RunningSubscription } from '@upscaler/messaging';
import { RUNTIME, type Runtime } from '@upscaler/runtime';

/**
 * Keeps the read models current with what other services append (the api applies its own appends
 * inline, for read-your-writes). Idempotent, so several api replicas may run it side by side.
 */
@Injectable()
export class ProjectionRunner implements OnApplicationBootstrap, OnApplicationShutdown {
  private sub: RunningSubscription | undefined;

  constructor(@Inject(RUNTIME) private readonly rt: Runtime) {}

  async onApplicationBootstrap(): Promise<void> {
    this.sub = await this.rt.transport.subscribe({
      consumer: 'api-projections',
      categories: this.rt.projector.categories,
      handle: (event) => this.rt.projector.applyOne(event),
    });
  }

  async onApplicationShutdown(): Promise<void> {
    await this.sub?.stop();
  }
}

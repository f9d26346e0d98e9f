import { Inject, Injectable } from '@nestjs/common';
import type { StoredEvent } from '@upscaler/contracts';
import { EventLogConsumer, RUNTIME, type Runtime } from '@upscaler/runtime';

/**
 * Keeps the read models current with what other services append (the api applies its own appends
 * inline, for read-your-writes). Idempotent, so several api replicas may run it side by side.
 */
@Injectable()
export class ProjectionRunner extends EventLogConsumer {
  constructor(@Inject(RUNTIME) rt: Runtime) {
    super(rt, { consumer: 'api-projections', categories: rt.projector.categories });
  }

  async handle(event: StoredEvent): Promise<void> {
    await this.rt.projector.applyOne(event);
  }
}

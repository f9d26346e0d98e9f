import { DynamicModule, Global, Module } from '@nestjs/common';
import { TerminusModule } from '@nestjs/terminus';
import { ReadModelRepository } from '@upscaler/projections';
import { WorkQueueRepository } from '@upscaler/work-queue';
import { HealthController } from './health.controller';
import { Metrics } from './observability/metrics';
import { MetricsController } from './observability/metrics.controller';
import { Readiness } from './readiness';
import { CLOCK, CONFIG, DATABASE, EVENT_STORE, LOGGER, RUNTIME, RUNTIME_MODE, SIGNED_DOWNLOADS, STORAGE, TRANSPORT } from './tokens';
import type { Runtime } from './runtime';

/**
 * Makes the runtime's ports injectable one by one (tokens.ts) and serves /health/live, /health/ready
 * and /metrics. Classes inject what they use; RUNTIME stays for the composition only.
 */
@Global()
@Module({})
export class RuntimeModule {
  static forRuntime(rt: Runtime): DynamicModule {
    const providers = [
      { provide: RUNTIME, useValue: rt },
      { provide: EVENT_STORE, useValue: rt.store },
      { provide: TRANSPORT, useValue: rt.transport },
      { provide: STORAGE, useValue: rt.storage },
      { provide: SIGNED_DOWNLOADS, useValue: rt.signedDownloads },
      { provide: CLOCK, useValue: rt.clock },
      { provide: CONFIG, useValue: rt.config },
      { provide: LOGGER, useValue: rt.logger },
      { provide: RUNTIME_MODE, useValue: rt.mode },
      { provide: Metrics, useValue: rt.metrics },
      { provide: Readiness, useValue: rt.readiness },
      { provide: ReadModelRepository, useValue: rt.readModels },
      { provide: DATABASE, useValue: rt.db },
      { provide: WorkQueueRepository, useValue: rt.workQueue },
    ];
    return {
      module: RuntimeModule,
      imports: [TerminusModule.forRoot({ logger: false })],
      controllers: [HealthController, MetricsController],
      providers,
      exports: providers.map((p) => p.provide),
    };
  }
}

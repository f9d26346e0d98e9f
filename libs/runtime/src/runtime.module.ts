import { DynamicModule, Global, Module } from '@nestjs/common';
import { TerminusModule } from '@nestjs/terminus';
import { HealthController } from './health.controller';
import { MetricsController } from './observability/metrics.controller';
import { RUNTIME } from './tokens';
import type { Runtime } from './runtime';

/** Makes the runtime's adapters injectable everywhere and serves /health/live and /health/ready. */
@Global()
@Module({})
export class RuntimeModule {
  static forRuntime(rt: Runtime): DynamicModule {
    return {
      module: RuntimeModule,
      imports: [TerminusModule.forRoot({ logger: false })],
      controllers: [HealthController, MetricsController],
      providers: [{ provide: RUNTIME, useValue: rt }],
      exports: [RUNTIME],
    };
  }
}

import './tracing';
import { exitOnStartFailure, runService } from '@upscaler/runtime';
import { BillingModule } from './billing.module';

/** Distributed entry point (docs/design.md §3): this service alone, configured from the environment. */
runService({ service: 'billing', modules: [BillingModule] }).catch(exitOnStartFailure);

import './tracing';
import { CAPABILITIES } from '@upscaler/capabilities';
import { exitOnStartFailure, runService } from '@upscaler/runtime';
import { BillingWorkersModule } from '@upscaler/billing';

/** Distributed entry point (docs/design.md §3): this service alone, configured from the environment. */
runService({ service: 'billing', capabilities: CAPABILITIES, modules: [BillingWorkersModule] }).catch(exitOnStartFailure);

import './tracing';
import { CAPABILITIES } from '@upscaler/capabilities';
import { exitOnStartFailure, runService } from '@upscaler/runtime';
import { BillingModule } from './billing.module';

/** Distributed entry point (docs/design.md §3): this service alone, configured from the environment. */
runService({ service: 'billing', capabilities: CAPABILITIES, modules: [BillingModule] }).catch(exitOnStartFailure);

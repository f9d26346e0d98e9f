import './tracing';
import { CAPABILITIES } from '@upscaler/capabilities';
import { exitOnStartFailure, runService } from '@upscaler/runtime';
import { WebhooksModule } from './webhooks.module';

/** Distributed entry point (docs/design.md §3): this service alone, configured from the environment. */
runService({ service: 'webhooks', capabilities: CAPABILITIES, modules: [WebhooksModule] }).catch(exitOnStartFailure);

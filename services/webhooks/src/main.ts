import './tracing';
import { CAPABILITIES } from '@upscaler/capabilities';
import { exitOnStartFailure, runService } from '@upscaler/runtime';
import { WebhookWorkersModule } from '@upscaler/webhooks';

/** Distributed entry point (docs/design.md §3): this service alone, configured from the environment. */
runService({ service: 'webhooks', capabilities: CAPABILITIES, modules: [WebhookWorkersModule] }).catch(exitOnStartFailure);

import './tracing';
import { CAPABILITIES } from '@upscaler/capabilities';
import { exitOnStartFailure, runService } from '@upscaler/runtime';
import { JobWorkersModule } from '@upscaler/jobs';

/** Distributed entry point (docs/design.md §3): this service alone, configured from the environment. */
runService({ service: 'processor', capabilities: CAPABILITIES, modules: [JobWorkersModule] }).catch(exitOnStartFailure);

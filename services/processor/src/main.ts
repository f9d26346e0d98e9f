import './tracing';
import { CAPABILITIES } from '@upscaler/capabilities';
import { exitOnStartFailure, runService } from '@upscaler/runtime';
import { ProcessorModule } from './processor.module';

/** Distributed entry point (docs/design.md §3): this service alone, configured from the environment. */
runService({ service: 'processor', capabilities: CAPABILITIES, modules: [ProcessorModule] }).catch(exitOnStartFailure);

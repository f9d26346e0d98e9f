import './tracing';
import { CAPABILITIES } from '@upscaler/capabilities';
import { exitOnStartFailure, runService } from '@upscaler/runtime';
import { ApiModule } from './api.module';
import { JobPollFastPath } from '@upscaler/jobs';
import { UnkeyedErrorRateLimit } from '@upscaler/http-api';

/** Distributed entry point (docs/design.md §3): this service alone, configured from the environment. */
runService({
  service: 'api',
  capabilities: CAPABILITIES,
  modules: [ApiModule],
  errorResponseHook: UnkeyedErrorRateLimit,
  fastPaths: [JobPollFastPath],
}).catch(exitOnStartFailure);

import './tracing';
import { CAPABILITIES } from '@upscaler/capabilities';
import { exitOnStartFailure, runService } from '@upscaler/runtime';
import { ApiModule } from '../../api/src/api.module';
import { JobPollFastPath, JobWorkersModule } from '@upscaler/jobs';
import { UnkeyedErrorRateLimit } from '@upscaler/http-api';
import { BillingWorkersModule } from '@upscaler/billing';
import { WebhookWorkersModule } from '@upscaler/webhooks';
import { resolveOperatorToken } from './operator-token';

/**
 * `npm start`: the whole service in one process on embedded defaults (docs/design.md §3). The standalone is
 * the composition root: the one place that puts the four services together; they never import
 * each other.
 */
const base = (config: { publicBaseUrl?: string; port: number }) => config.publicBaseUrl ?? `http://127.0.0.1:${config.port}`;

runService({
  service: 'standalone',
  capabilities: CAPABILITIES,
  modules: [BillingWorkersModule, ApiModule, JobWorkersModule, WebhookWorkersModule],
  errorResponseHook: UnkeyedErrorRateLimit,
  fastPaths: [JobPollFastPath],
  prepare: async (config) => {
    const operator = await resolveOperatorToken(config.dataDir, config.operatorToken);
    return {
      config: { ...config, operatorToken: operator.token },
      banner: [
        `  Dashboard:       ${base(config)}/dashboard`,
        `  API reference:   ${base(config)}/docs (OpenAPI: ${base(config)}/api/v1/openapi.json)`,
        `  Operator token:  ${operator.file ? `in ${operator.file}` : 'from UPSCALE_OPERATOR_TOKEN'}`,
        `  Data directory:  ${config.dataDir}`,
      ],
    };
  },
}).catch(exitOnStartFailure);

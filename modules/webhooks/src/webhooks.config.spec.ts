import { configSection, loadConfig } from '@upscaler/config';
import { webhooksConfig } from './webhooks.config';

const read = (env: NodeJS.ProcessEnv) => configSection(loadConfig(env, [webhooksConfig]), webhooksConfig);

describe('webhook settings (docs/operations.md "Configuration")', () => {
  it('defaults: the built-in retry schedule, 10 s per attempt, 50 / 4 / 10 attempts at once, 10 endpoints per account', () => {
    expect(read({})).toEqual({
      retryScheduleMs: undefined,
      timeoutMs: 10_000,
      concurrency: { total: 50, perEndpoint: 4, perAccount: 10 },
      maxEndpointsPerAccount: 10,
    });
  });

  it('reads each variable', () => {
    expect(
      read({
        UPSCALE_WEBHOOK_RETRY_SCHEDULE_MS: '100, 200,400',
        UPSCALE_WEBHOOK_TIMEOUT_MS: '2500',
        UPSCALE_WEBHOOK_CONCURRENCY: '20',
        UPSCALE_WEBHOOK_ENDPOINT_CONCURRENCY: '2',
        UPSCALE_WEBHOOK_ACCOUNT_CONCURRENCY: '5',
        UPSCALE_MAX_WEBHOOK_ENDPOINTS_PER_ACCOUNT: '3',
      }),
    ).toEqual({
      retryScheduleMs: [100, 200, 400],
      timeoutMs: 2500,
      concurrency: { total: 20, perEndpoint: 2, perAccount: 5 },
      maxEndpointsPerAccount: 3,
    });
  });

  it('stops at start-up on a bad value, naming the variable', () => {
    expect(() => read({ UPSCALE_WEBHOOK_RETRY_SCHEDULE_MS: '100,soon' })).toThrow(
      /UPSCALE_WEBHOOK_RETRY_SCHEDULE_MS: must be a comma-separated list of non-negative integers/,
    );
    expect(() => read({ UPSCALE_MAX_WEBHOOK_ENDPOINTS_PER_ACCOUNT: 'ten' })).toThrow(
      /UPSCALE_MAX_WEBHOOK_ENDPOINTS_PER_ACCOUNT: must be an integer from 1 to 1000/,
    );
    // an endpoint's share within its account's, and an account's below the whole (other accounts need room)
    expect(() => read({ UPSCALE_WEBHOOK_ENDPOINT_CONCURRENCY: '6', UPSCALE_WEBHOOK_ACCOUNT_CONCURRENCY: '5' })).toThrow(
      /UPSCALE_WEBHOOK_ENDPOINT_CONCURRENCY: must not exceed UPSCALE_WEBHOOK_ACCOUNT_CONCURRENCY/,
    );
    expect(() => read({ UPSCALE_WEBHOOK_ACCOUNT_CONCURRENCY: '50' })).toThrow(/UPSCALE_WEBHOOK_ACCOUNT_CONCURRENCY: must be below/);
  });
});

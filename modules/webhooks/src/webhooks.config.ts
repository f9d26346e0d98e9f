import { settingsProvider } from '@upscaler/runtime';
import { defineConfigSection, int, optionalString } from '@upscaler/config';

/** The webhooks' settings (docs/operations.md "Configuration"), read with the rest at start-up. */
export interface WebhookSettings {
  /** Delays before each retry (UPSCALE_WEBHOOK_RETRY_SCHEDULE_MS); undefined: the built-in schedule. */
  retryScheduleMs: number[] | undefined;
  timeoutMs: number;
  /**
   * Webhook attempts one webhooks process runs at once: in all, per endpoint, per account (docs/operations.md
   * "Webhook delivery scheduling"). A hanging endpoint holds at most its endpoint's share, an account its account's.
   */
  concurrency: { total: number; perEndpoint: number; perAccount: number };
  /** Enabled webhook endpoints an account may have (docs/api.md "Limits"). */
  maxEndpointsPerAccount: number;
}

export const webhooksConfig = defineConfigSection(
  'webhooks',
  {
    UPSCALE_WEBHOOK_RETRY_SCHEDULE_MS: optionalString,
    UPSCALE_WEBHOOK_TIMEOUT_MS: int(10_000, 100, 120_000),
    UPSCALE_WEBHOOK_CONCURRENCY: int(50, 1, 10_000),
    UPSCALE_WEBHOOK_ENDPOINT_CONCURRENCY: int(4, 1, 1000),
    UPSCALE_WEBHOOK_ACCOUNT_CONCURRENCY: int(10, 1, 10_000),
    UPSCALE_MAX_WEBHOOK_ENDPOINTS_PER_ACCOUNT: int(10, 1, 1000),
  },
  (e, problems): WebhookSettings => {
    let schedule: number[] | undefined;
    if (e.UPSCALE_WEBHOOK_RETRY_SCHEDULE_MS) {
      schedule = e.UPSCALE_WEBHOOK_RETRY_SCHEDULE_MS.split(',').map((s) => Number(s.trim()));
      if (schedule.length === 0 || schedule.some((n) => !Number.isInteger(n) || n < 0)) {
        problems.push('UPSCALE_WEBHOOK_RETRY_SCHEDULE_MS: must be a comma-separated list of non-negative integers (ms)');
      }
    }
    if (e.UPSCALE_WEBHOOK_ENDPOINT_CONCURRENCY > e.UPSCALE_WEBHOOK_ACCOUNT_CONCURRENCY) {
      problems.push('UPSCALE_WEBHOOK_ENDPOINT_CONCURRENCY: must not exceed UPSCALE_WEBHOOK_ACCOUNT_CONCURRENCY');
    }
    if (e.UPSCALE_WEBHOOK_ACCOUNT_CONCURRENCY >= e.UPSCALE_WEBHOOK_CONCURRENCY) {
      problems.push('UPSCALE_WEBHOOK_ACCOUNT_CONCURRENCY: must be below UPSCALE_WEBHOOK_CONCURRENCY (other accounts need room)');
    }
    return {
      retryScheduleMs: schedule,
      timeoutMs: e.UPSCALE_WEBHOOK_TIMEOUT_MS,
      concurrency: {
        total: e.UPSCALE_WEBHOOK_CONCURRENCY,
        perEndpoint: e.UPSCALE_WEBHOOK_ENDPOINT_CONCURRENCY,
        perAccount: e.UPSCALE_WEBHOOK_ACCOUNT_CONCURRENCY,
      },
      maxEndpointsPerAccount: e.UPSCALE_MAX_WEBHOOK_ENDPOINTS_PER_ACCOUNT,
    };
  },
);

export const WEBHOOK_SETTINGS = Symbol('WEBHOOK_SETTINGS');

/** The webhooks' settings for the module's classes, from the config the runtime read. */
export const webhookSettingsProvider = settingsProvider(WEBHOOK_SETTINGS, webhooksConfig);

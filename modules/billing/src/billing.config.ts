import { settingsProvider } from '@upscaler/runtime';
import { defineConfigSection, int } from '@upscaler/config';

/** Billing's settings (docs/operations.md "Configuration"), read with the rest at start-up. */
export interface BillingSettings {
  /**
   * How long a caller waits for billing's answer (a reservation, a release, an operator's account change) before it
   * answers 503 billing_unavailable: the jobs' submit saga and the account endpoints alike.
   */
  answerTimeoutMs: number;
  /** How long credits stay reserved for a job that never came (the reservation sweeper hands them back after it). */
  reservationTimeoutMs: number;
}

export const billingConfig = defineConfigSection(
  'billing',
  {
    UPSCALE_BILLING_TIMEOUT_MS: int(5000, 50, 120_000),
    UPSCALE_RESERVATION_TIMEOUT_MS: int(15 * 60_000, 1000),
  },
  (e): BillingSettings => ({ answerTimeoutMs: e.UPSCALE_BILLING_TIMEOUT_MS, reservationTimeoutMs: e.UPSCALE_RESERVATION_TIMEOUT_MS }),
);

export const BILLING_SETTINGS = Symbol('BILLING_SETTINGS');

/** Billing's settings by token, for its own classes and for the capabilities that wait for it (the jobs' saga). */
export const billingSettingsProvider = settingsProvider(BILLING_SETTINGS, billingConfig);

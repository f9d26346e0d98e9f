import type { Capability } from '@upscaler/runtime';
import { billingConfig } from './billing.config';
import { billingMetrics } from './billing.metrics';
import { BalanceProjection } from './projections/balance.projection';
import { Balances1764000000000 } from './projections/migrations/1764000000000-balances';

/** The balances (`account_balances`, `credit_reservations`): their table, and the projection every append runs. */
export const billingCapability: Capability = {
  name: 'billing',
  inlineProjections: () => [new BalanceProjection()],
  migrations: [Balances1764000000000],
  metrics: billingMetrics,
  config: [billingConfig],
};

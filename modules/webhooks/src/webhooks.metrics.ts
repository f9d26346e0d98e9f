import type { Counter, Gauge, Histogram } from 'prom-client';
import type { ReadModelRepository } from '@upscaler/projections';
import type { EventMeter, Metrics } from '@upscaler/runtime';

/** The webhooks' own series (docs/operations.md "Metrics"): what the delivery worker observes and counts. */
export class WebhookMetrics {
  readonly attempts: Counter<'outcome'>;
  readonly lag: Histogram<string>;
  readonly inFlight: Gauge<string>;
  readonly sharesFull: Gauge<'share'>;

  constructor(metrics: Metrics) {
    this.attempts = metrics.counter(
      'upscaler_webhook_delivery_attempts_total',
      'Webhook delivery attempts by outcome (succeeded, retrying, abandoned, endpoint_gone).',
      ['outcome'],
    );
    this.lag = metrics.histogram(
      'upscaler_webhook_delivery_lag_seconds',
      'Time from a webhook delivery falling due (scheduled, or its retry time) to its attempt starting.',
      [0.25, 0.5, 1, 2, 5, 10, 30, 60, 300, 1800],
    );
    this.inFlight = metrics.gauge('upscaler_webhook_attempts_in_flight', 'Webhook attempts this process has under way.', []);
    this.sharesFull = metrics.gauge(
      'upscaler_webhook_shares_full',
      'Endpoints (share="endpoint") and accounts (share="account") whose share of this process\'s webhook attempts is all under way while more of their deliveries are due.',
      ['share'],
    );
  }
}

/** The capability's `metrics`: its series, the backlog gauge, and the count of attempts by outcome. */
export function webhookMetrics(metrics: Metrics, readModels: ReadModelRepository): EventMeter {
  const series = metrics.section(WebhookMetrics);
  metrics.gauge('upscaler_webhook_deliveries_due', 'Webhook deliveries due now and not yet attempted (the backlog).', [], async (g) => {
    g.set(await readModels.countDue('delivery'));
  });
  return (e) => {
    if (e.type === 'DeliveryAttempted') series.attempts.inc({ outcome: (e.data as { outcome?: string }).outcome ?? 'unknown' });
  };
}

import type { EventMeter, Metrics } from '@upscaler/runtime';

/**
 * The capability's `metrics`: `upscaler_credits_total`, counted from what is appended, so each credit is counted once
 * whichever service decided it. A job's final event is its settlement (docs/design.md §2): the charge or the refund of
 * its credits.
 */
export function billingMetrics(metrics: Metrics): EventMeter {
  const credits = metrics.counter(
    'upscaler_credits_total',
    'Credits this process reserved, charged or refunded (by kind; refunds also by reason).',
    ['kind', 'reason'],
  );
  return (e) => {
    const d = e.data as { amount?: number; credits?: number; reason?: string };
    switch (e.type) {
      case 'CreditsReserved':
        return credits.inc({ kind: 'reserved', reason: '' }, d.amount ?? 0);
      case 'CreditsCharged':
        return credits.inc({ kind: 'charged', reason: '' }, d.amount ?? 0);
      case 'CreditsRefunded':
        return credits.inc({ kind: 'refunded', reason: d.reason ?? '' }, d.amount ?? 0);
      case 'JobSucceeded':
        return credits.inc({ kind: 'charged', reason: '' }, d.credits ?? 0);
      case 'JobFailed':
        return credits.inc({ kind: 'refunded', reason: 'failed' }, d.credits ?? 0);
      case 'JobCancelled':
        return credits.inc({ kind: 'refunded', reason: 'cancelled' }, d.credits ?? 0);
    }
  };
}

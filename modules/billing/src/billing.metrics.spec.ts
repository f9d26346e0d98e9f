import type { StoredEvent } from '@upscaler/contracts';
import { Metrics } from '@upscaler/runtime';
import { billingMetrics } from './billing.metrics';

const event = (type: string, data: Record<string, unknown>): StoredEvent =>
  ({ type, data, streamId: 'x', version: 1, position: 1, metadata: {}, recordedAt: new Date(0) }) as unknown as StoredEvent;

describe('billing metrics: upscaler_credits_total from what is appended', () => {
  it('counts reservations, charges and refunds by kind and reason, a job final event being its settlement', async () => {
    const metrics = new Metrics('billing');
    const count = billingMetrics(metrics);
    for (const e of [
      event('CreditsReserved', { amount: 4 }),
      event('JobSucceeded', { credits: 1 }),
      event('JobFailed', { credits: 2 }),
      event('JobCancelled', { credits: 1 }),
      event('CreditsRefunded', { amount: 3, reason: 'reservation_expired' }),
      event('CreditsGranted', { amount: 100 }),
    ])
      count(e);
    const values = (await metrics.registry.getSingleMetric('upscaler_credits_total')!.get()).values;
    expect(values.map((v) => [v.labels.kind, v.labels.reason, v.value])).toEqual([
      ['reserved', '', 4],
      ['charged', '', 1],
      ['refunded', 'failed', 2],
      ['refunded', 'cancelled', 1],
      ['refunded', 'reservation_expired', 3],
    ]);
  });
});

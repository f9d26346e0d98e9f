import type { DataSource } from 'typeorm';
import { JOB_STATUSES } from '@upscaler/contracts';
import type { Metrics } from './metrics';

/** Gauges of the whole system, read from Postgres at scrape time (cheap indexed counts). */
export function registerSystemGauges(metrics: Metrics, db: DataSource): void {
  metrics.gauge('upscaler_jobs', 'Jobs by current status (read model).', ['status'] as const, async (g) => {
    const rows: Array<{ status: string; n: string }> = await db.query(
      `SELECT status, count(*) AS n FROM read_models WHERE category = 'job' GROUP BY status`,
    );
    for (const s of JOB_STATUSES) g.set({ status: s }, Number(rows.find((r) => r.status === s)?.n ?? 0));
  });
  metrics.gauge('upscaler_queue_depth', 'Jobs waiting for a processor (queued + pending).', [] as const, async (g) => {
    const rows: Array<{ n: string }> = await db.query(
      `SELECT count(*) AS n FROM read_models WHERE category = 'job' AND status IN ('queued', 'pending')`,
    );
    g.set(Number(rows[0]?.n ?? 0));
  });
  metrics.gauge(
    'upscaler_webhook_deliveries_due',
    'Webhook deliveries due now and not yet attempted (the backlog).',
    [] as const,
    async (g) => {
      const rows: Array<{ n: string }> = await db.query(
        `SELECT count(*) AS n FROM read_models WHERE category = 'delivery' AND next_at IS NOT NULL AND next_at <= now()`,
      );
      g.set(Number(rows[0]?.n ?? 0));
    },
  );
  metrics.gauge(
    'upscaler_consumer_lag_events',
    'Events in the log not yet handled, per consumer checkpoint.',
    ['consumer'] as const,
    async (g) => {
      const rows: Array<{ consumer: string; lag: string }> = await db.query(
        `SELECT c.consumer, GREATEST(0, (SELECT COALESCE(max(position), 0) FROM events) - c.position) AS lag FROM checkpoints c`,
      );
      g.reset();
      for (const r of rows) g.set({ consumer: r.consumer }, Number(r.lag));
    },
  );
}

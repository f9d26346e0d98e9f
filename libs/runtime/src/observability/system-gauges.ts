import type { DataSource } from 'typeorm';
import type { Metrics } from './metrics';

/** The event log's own gauge, read from Postgres at scrape time; capabilities add theirs (their `metrics`). */
export function registerSystemGauges(metrics: Metrics, db: DataSource): void {
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

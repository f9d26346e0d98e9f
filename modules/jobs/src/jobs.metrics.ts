import type { Histogram, Counter } from 'prom-client';
import { JOB_STATUSES } from '@upscaler/contracts';
import type { ReadModelRepository } from '@upscaler/projections';
import type { EventMeter, Metrics } from '@upscaler/runtime';

/** The jobs' own series (docs/operations.md "Metrics"): what the processor's workers observe. */
export class JobMetrics {
  readonly engineSeconds: Histogram<'network' | 'scale'>;
  readonly finished: Counter<'status'>;
  readonly attemptsLost: Counter<'reason'>;
  readonly filesDeleted: Counter<'reason'>;

  constructor(metrics: Metrics) {
    this.engineSeconds = metrics.histogram(
      'upscaler_engine_duration_seconds',
      'Engine time per job (decode, network over all tiles, encode) by network and scale.',
      [0.05, 0.1, 0.25, 0.5, 1, 2, 5, 10, 20, 40, 80, 160],
      ['network', 'scale'],
    );
    this.finished = metrics.counter('upscaler_jobs_finished_total', 'Jobs this process moved to a final state, by status.', ['status']);
    this.attemptsLost = metrics.counter(
      'upscaler_job_attempts_lost_total',
      'Processing attempts this process found lost, by reason: lease_expired (the processor died or stalled), storage (storage kept failing during the attempt).',
      ['reason'],
    );
    this.filesDeleted = metrics.counter(
      'upscaler_job_files_deleted_total',
      "Jobs whose source and result this process deleted from storage, by reason: retention (UPSCALE_FILE_RETENTION ran out), operator (an operator deleted an account's files).",
      ['reason'],
    );
  }
}

const FINAL: Record<string, string> = { JobSucceeded: 'succeeded', JobFailed: 'failed', JobCancelled: 'cancelled' };

/** The capability's `metrics`: its series, the jobs-by-status and queue gauges, and the count of finished jobs. */
export function jobMetrics(metrics: Metrics, readModels: ReadModelRepository): EventMeter {
  const series = metrics.section(JobMetrics);
  metrics.gauge('upscaler_jobs', 'Jobs by current status (read model).', ['status'] as const, async (g) => {
    const counts = await readModels.countByStatus('job');
    for (const s of JOB_STATUSES) g.set({ status: s }, counts.get(s) ?? 0);
  });
  metrics.gauge('upscaler_queue_depth', 'Jobs waiting for a processor (queued + pending).', [] as const, async (g) => {
    const counts = await readModels.countByStatus('job');
    g.set((counts.get('queued') ?? 0) + (counts.get('pending') ?? 0));
  });
  return (e) => {
    const status = FINAL[e.type];
    if (status) series.finished.inc({ status });
  };
}

import { categoryOf, JOB_EVENT_TYPES, type StoredEvent } from '@upscaler/contracts';
import type { InlineProjection, SqlTx } from '@upscaler/eventstore';
import { READY, WORK_CHANNEL, stopMessage } from './channel';

/** Every job event but JobFilesDeleted (a final job's files are no business of the queue), and an account's limits. */
const HANDLED = new Set<string>([...JOB_EVENT_TYPES.filter((t) => t !== 'JobFilesDeleted'), 'AccountLimitsSet']);

/**
 * Keeps `work_queue` in step with the job streams, inside each job event's transaction: a job is
 * enqueued in the same transaction as its JobQueued (never an event without its queue row, nor the
 * reverse), leaves the queue with its final event, and waits in `pending` until its backoff is over.
 * Wakes processors with NOTIFY (delivered at commit); tells the processor running a job to stop when
 * it is cancelled (cancel is pushed, no polling).
 */
export class WorkQueueProjection implements InlineProjection {
  readonly name = 'work-queue';

  handles(event: StoredEvent): boolean {
    return HANDLED.has(event.type) && (event.type === 'AccountLimitsSet' || categoryOf(event.streamId) === 'job');
  }

  async reset(tx: SqlTx): Promise<void> {
    await tx.query('DELETE FROM work_queue');
    await tx.query('DELETE FROM work_queue_accounts');
  }

  async apply(tx: SqlTx, events: StoredEvent[]): Promise<void> {
    for (const e of events) await this.applyOne(tx, e);
  }

  private async applyOne(tx: SqlTx, e: StoredEvent): Promise<void> {
    const d = e.data as Record<string, unknown>;
    switch (e.type) {
      case 'JobQueued':
        await tx.query(
          `INSERT INTO work_queue (job_id, account_id, status, enqueued_at, run_at, trace) VALUES ($1, $2, 'queued', $3, clock_timestamp(), $4)
           ON CONFLICT DO NOTHING`,
          [d.jobId, d.accountId, d.queuedAt, JSON.stringify(traceOf(e))],
        );
        await tx.query(`INSERT INTO work_queue_accounts (account_id) VALUES ($1) ON CONFLICT DO NOTHING`, [d.accountId]);
        return notify(tx, READY);
      case 'JobStarted':
        await tx.query(`UPDATE work_queue SET status = 'processing', attempt = $2 WHERE job_id = $1`, [d.jobId, d.attempt]);
        return;
      case 'JobAttemptLost':
        await tx.query(
          `UPDATE work_queue SET status = 'pending', run_at = $2, lease_token = NULL, lease_owner = NULL, lease_expires_at = NULL
            WHERE job_id = $1`,
          [d.jobId, d.retryAt],
        );
        // a slot of the account's limit is free again
        return notify(tx, READY);
      case 'JobRequeued':
        await tx.query(
          `UPDATE work_queue SET status = 'queued', run_at = clock_timestamp(), lease_token = NULL, lease_owner = NULL, lease_expires_at = NULL
            WHERE job_id = $1`,
          [d.jobId],
        );
        return notify(tx, READY);
      case 'JobSucceeded':
      case 'JobFailed':
      case 'JobCancelled': {
        const removed = await tx.query<{ status: string }>(`DELETE FROM work_queue WHERE job_id = $1 RETURNING status`, [d.jobId]);
        if (e.type !== 'JobSucceeded' && removed[0]?.status === 'processing') await notify(tx, stopMessage(String(d.jobId)));
        return notify(tx, READY);
      }
      case 'AccountLimitsSet':
        await tx.query(
          `INSERT INTO work_queue_accounts (account_id, max_running) VALUES ($1, $2)
           ON CONFLICT (account_id) DO UPDATE SET max_running = EXCLUDED.max_running`,
          [d.accountId, d.maxConcurrentJobs],
        );
        return notify(tx, READY);
    }
  }
}

function traceOf(e: StoredEvent): { traceparent?: string; tracestate?: string } {
  const { traceparent, tracestate } = e.metadata;
  return { ...(traceparent ? { traceparent } : {}), ...(tracestate ? { tracestate } : {}) };
}

async function notify(tx: SqlTx, payload: string): Promise<void> {
  await tx.query('SELECT pg_notify($1, $2)', [WORK_CHANNEL, payload]);
}

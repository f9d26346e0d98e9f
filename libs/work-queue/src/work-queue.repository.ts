import { randomUUID } from 'node:crypto';
import type { DataSource } from 'typeorm';
import { PgNotificationListener, pgConfigOf, sqlRows, txOf, type NotificationHandlers, type SqlTx } from '@upscaler/eventstore';
import { PROGRESS_CHANNEL, READY, WORK_CHANNEL, progressMessage } from './channel';

/**
 * An account row (`alias`) that has a queued job nobody holds and room under its limit (its own
 * `max_running`, else the default passed as `defaultLimit`; 0 = no limit): what a claim may take from.
 */
function claimable(alias: string, defaultLimit: string): string {
  const limit = `coalesce(${alias}.max_running, ${defaultLimit})`;
  return `EXISTS (SELECT 1 FROM work_queue q WHERE q.account_id = ${alias}.account_id AND q.status = 'queued' AND q.lease_token IS NULL)
            AND (${limit} = 0
                 OR (SELECT count(*) FROM work_queue r WHERE r.account_id = ${alias}.account_id AND r.lease_token IS NOT NULL) < ${limit})`;
}

/** A processor's claim on one attempt of a job: valid while `token` still holds the row's lease. */
export interface Lease {
  jobId: string;
  accountId: string;
  token: string;
  /** W3C trace context of the submit, for the processor's span. */
  trace?: { traceparent?: string; tracestate?: string };
}

export interface ExpiredLease {
  jobId: string;
  token: string | null;
  /** queued: claimed but never started (nothing to lose); processing: an attempt is lost. */
  status: 'queued' | 'processing';
  attempt: number;
}

/** Thrown by the lease guards: the lease is no longer this processor's (expired and taken, or the job ended). */
export class LeaseLostError extends Error {
  constructor(readonly jobId: string) {
    super(`The lease on ${jobId} is no longer held.`);
    this.name = 'LeaseLostError';
  }
}

/**
 * The work queue's SQL (the only code that touches `work_queue` besides its projection). Claims use
 * `FOR UPDATE SKIP LOCKED` on the account row, then on the job row: processors never wait for each
 * other, and two claims of one account are serialised; the limit is counted again after the account's
 * lock is taken (`claim`), which is what makes the per-account limit exact across processors.
 *
 * Why not pg-boss or graphile-worker: the queue row must be written in the same transaction as the
 * job's JobQueued (both libraries enqueue through their own connection or function, outside our
 * append's transaction, so a crash between the two would leave an event without work or work without
 * an event), and neither has fair share between groups with a per-group concurrency limit. What is
 * kept from them: SKIP LOCKED claims, leases with expiry and renewal, LISTEN/NOTIFY wake-ups.
 */
export class WorkQueueRepository {
  constructor(private readonly db: DataSource) {}

  /**
   * Leases the next job for `workerId`: among accounts with a queued, unleased job and room under
   * their limit (`max_running`, else `defaultLimit`; 0 = none), the one served longest ago; its
   * oldest such job. Null when none is claimable now (or all candidates were being claimed by others
   * at this instant: `contended`).
   */
  async claim(workerId: string, leaseMs: number, defaultLimit: number): Promise<{ lease: Lease | null; contended: boolean }> {
    const token = randomUUID();
    const rows = await this.db.transaction(async (manager) => {
      const tx = txOf(manager.queryRunner!);
      // 1. The account to serve, locked: another claim skips it until this transaction ends.
      const [candidate] = await tx.query<{ account_id: string }>(
        `SELECT a.account_id FROM work_queue_accounts a
          WHERE ${claimable('a', '$1')}
          ORDER BY a.last_claimed_at ASC NULLS FIRST, a.account_id
          LIMIT 1
          FOR UPDATE OF a SKIP LOCKED`,
        [defaultLimit],
      );
      if (!candidate) return [];
      // 2. Its oldest claimable job, with the limit checked again in this statement's own snapshot (READ COMMITTED:
      // one per statement), taken while the lock is held. Statement 1's snapshot may predate a claim of the same
      // account that committed just before the lock was taken (its row then passes the lock check with a stale
      // count); this one sees that lease, so the per-account limit is exact across processors.
      return tx.query<{ job_id: string; account_id: string; trace: Lease['trace'] }>(
        `WITH picked AS (
           SELECT q.job_id FROM work_queue q JOIN work_queue_accounts a ON a.account_id = q.account_id
            WHERE a.account_id = $1 AND ${claimable('a', '$2')} AND q.status = 'queued' AND q.lease_token IS NULL
            ORDER BY q.enqueued_at, q.job_id
            LIMIT 1
            FOR UPDATE OF q SKIP LOCKED
         ), leased AS (
           UPDATE work_queue q
              SET lease_token = $3, lease_owner = $4, claimed_at = clock_timestamp(), progress = 0,
                  lease_expires_at = clock_timestamp() + make_interval(secs => $5::double precision / 1000)
             FROM picked WHERE q.job_id = picked.job_id
           RETURNING q.job_id, q.account_id, q.trace
         ), served AS (
           -- a data-modifying CTE runs whether or not the query reads it
           UPDATE work_queue_accounts a SET last_claimed_at = clock_timestamp() FROM leased WHERE a.account_id = leased.account_id
         )
         SELECT job_id, account_id, trace FROM leased`,
        [candidate.account_id, defaultLimit, token, workerId, leaseMs],
      );
    });
    if (rows[0]) return { lease: { jobId: rows[0].job_id, accountId: rows[0].account_id, token, trace: rows[0].trace }, contended: false };
    // Nothing leased: either nothing is claimable, or another processor held the candidate's row.
    const [{ waiting }]: Array<{ waiting: boolean }> = await this.db.query(
      `SELECT EXISTS (
         SELECT 1 FROM work_queue_accounts a
          WHERE ${claimable('a', '$1')}
       ) AS waiting`,
      [defaultLimit],
    );
    return { lease: null, contended: waiting };
  }

  /** Extends the lease; false when it is gone (expired and swept, or the job ended: stop working on it). */
  async renew(lease: Lease, leaseMs: number): Promise<boolean> {
    const rows = await sqlRows(
      this.db,
      `UPDATE work_queue SET lease_expires_at = clock_timestamp() + make_interval(secs => $3::double precision / 1000)
        WHERE job_id = $1 AND lease_token = $2 RETURNING 1`,
      [lease.jobId, lease.token, leaseMs],
    );
    return rows.length > 0;
  }

  /**
   * Records the running job's progress (0..1) and announces it on PROGRESS_CHANNEL, in one statement; false when
   * the lease is gone (nothing written: a stale attempt never moves the bar).
   */
  async reportProgress(lease: Lease, fraction: number): Promise<boolean> {
    const value = Math.min(1, Math.max(0, fraction));
    const rows = await sqlRows(
      this.db,
      `WITH updated AS (
         UPDATE work_queue SET progress = $3 WHERE job_id = $1 AND lease_token = $2 AND status = 'processing' RETURNING 1)
       SELECT pg_notify($4, $5) FROM updated`,
      [lease.jobId, lease.token, value, PROGRESS_CHANNEL, progressMessage(lease.jobId, value)],
    );
    return rows.length > 0;
  }

  /** The progress of every running job that reported some, for a listener catching up after a (re)connect. */
  async runningProgress(): Promise<Map<string, number>> {
    const rows: Array<{ job_id: string; progress: number }> = await this.db.query(
      `SELECT job_id, progress FROM work_queue WHERE status = 'processing' AND progress > 0`,
    );
    return new Map(rows.map((r) => [r.job_id, Number(r.progress)]));
  }

  /** A dedicated LISTEN connection on PROGRESS_CHANNEL; call `start()`. */
  listenProgress(handlers: NotificationHandlers): PgNotificationListener {
    return new PgNotificationListener(pgConfigOf(this.db), PROGRESS_CHANNEL, handlers);
  }

  /** Gives up a lease whose job was never started (the processor is stopping, or the start was refused). */
  async release(lease: Lease): Promise<void> {
    await this.db.query(
      `WITH released AS (
         UPDATE work_queue SET lease_token = NULL, lease_owner = NULL, lease_expires_at = NULL, claimed_at = NULL
          WHERE job_id = $1 AND lease_token = $2 AND status = 'queued' RETURNING 1)
       SELECT pg_notify($3, $4) FROM released`,
      [lease.jobId, lease.token, WORK_CHANNEL, READY],
    );
  }

  /**
   * Ends every lease now (the sweeper then handles them as expired). Only for a process that knows
   * every holder is dead: the embedded standalone, the one process of its data directory, at start.
   */
  async expireAll(): Promise<number> {
    const rows = await sqlRows(
      this.db,
      `UPDATE work_queue SET lease_expires_at = clock_timestamp() - interval '1 millisecond' WHERE lease_token IS NOT NULL RETURNING 1`,
    );
    return rows.length;
  }

  /** Leases past their expiry (and processing rows without one, after a rebuild), oldest first. */
  async expired(limit = 50): Promise<ExpiredLease[]> {
    const rows: Array<{ job_id: string; lease_token: string | null; status: 'queued' | 'processing'; attempt: number }> =
      await this.db.query(
        `SELECT job_id, lease_token, status, attempt FROM work_queue
        WHERE (lease_token IS NOT NULL AND lease_expires_at < clock_timestamp()) OR (status = 'processing' AND lease_token IS NULL)
        ORDER BY lease_expires_at NULLS FIRST LIMIT $1`,
        [limit],
      );
    return rows.map((r) => ({ jobId: r.job_id, token: r.lease_token, status: r.status, attempt: r.attempt }));
  }

  /** Pending jobs whose backoff is over. */
  async duePending(limit = 50): Promise<string[]> {
    const rows: Array<{ job_id: string }> = await this.db.query(
      `SELECT job_id FROM work_queue WHERE status = 'pending' AND run_at <= clock_timestamp() ORDER BY run_at LIMIT $1`,
      [limit],
    );
    return rows.map((r) => r.job_id);
  }

  /** Milliseconds until the next pending job is due, or null when none waits. */
  async msUntilNextDue(): Promise<number | null> {
    const [row]: Array<{ ms: number | null }> = await this.db.query(
      `SELECT (extract(epoch FROM min(run_at) - clock_timestamp()) * 1000)::double precision AS ms FROM work_queue WHERE status = 'pending'`,
    );
    return row.ms === null ? null : Math.max(0, row.ms);
  }

  /** A dedicated LISTEN connection on the queue's channel (`ready`, `stop <job>`); call `start()`. */
  listen(handlers: NotificationHandlers): PgNotificationListener {
    return new PgNotificationListener(pgConfigOf(this.db), WORK_CHANNEL, handlers);
  }

  /** Jobs waiting to be claimed (queued, unleased), for the queue-depth gauge. */
  async depth(): Promise<number> {
    const [row]: Array<{ n: string }> = await this.db.query(
      `SELECT count(*) AS n FROM work_queue WHERE status = 'queued' AND lease_token IS NULL`,
    );
    return Number(row.n);
  }
}

/**
 * Preconditions of queue-related appends, run inside the append's transaction (`AppendOptions.guard`):
 * the row is locked until the append commits, so a renewal or a sweep cannot slip in between.
 */
export const leaseGuards = {
  /** StartJob: the claim that leased the job still holds it. */
  held(lease: Lease) {
    return async (tx: SqlTx): Promise<void> => {
      const rows = await tx.query(`SELECT 1 FROM work_queue WHERE job_id = $1 AND lease_token = $2 FOR UPDATE`, [lease.jobId, lease.token]);
      if (rows.length === 0) throw new LeaseLostError(lease.jobId);
    };
  },
  /** The sweeper's LoseAttempt: the lease it saw expire is still expired (not renewed meanwhile). */
  expired(jobId: string, token: string | null) {
    return async (tx: SqlTx): Promise<void> => {
      const rows = await tx.query(
        token === null
          ? `SELECT 1 FROM work_queue WHERE job_id = $1 AND lease_token IS NULL AND status = 'processing' FOR UPDATE`
          : `SELECT 1 FROM work_queue WHERE job_id = $1 AND lease_token = $2 AND lease_expires_at < clock_timestamp() FOR UPDATE`,
        token === null ? [jobId] : [jobId, token],
      );
      if (rows.length === 0) throw new LeaseLostError(jobId);
    };
  },
};

import type { DataSource } from 'typeorm';
import { DomainError } from '@upscaler/contracts';
import { type AccountView } from '../model/account.views';
import type { SqlTx } from '@upscaler/eventstore';

interface BalanceRow {
  account_id: string;
  name: string;
  opened_at: Date;
  available: string;
  reserved: string;
  charged: string;
  max_concurrent_jobs: number | null;
}

/** An account as the API shows it (docs/design.md §6), plus its concurrent-job limit (null: the default). */
export interface AccountBalance extends AccountView {
  max_concurrent_jobs: number | null;
}

/** Reads of the balance projection (balance.projection.ts): one row per account, whatever its history. */
export class BalanceRepository {
  constructor(private readonly db: DataSource) {}

  async account(accountId: string): Promise<AccountBalance | null> {
    const rows: BalanceRow[] = await this.db.query(
      `SELECT account_id, name, opened_at, available, reserved, charged, max_concurrent_jobs FROM account_balances WHERE account_id = $1`,
      [accountId],
    );
    return rows[0] ? toView(rows[0]) : null;
  }

  /** Reservations whose job never appeared, reserved before `olderThan` (billing's expiry sweep). */
  async heldSince(olderThan: Date, limit = 100): Promise<Array<{ accountId: string; jobId: string }>> {
    const rows: Array<{ account_id: string; job_id: string }> = await this.db.query(
      `SELECT account_id, job_id FROM credit_reservations WHERE status = 'held' AND reserved_at < $1 ORDER BY reserved_at LIMIT $2`,
      [olderThan.toISOString(), limit],
    );
    return rows.map((r) => ({ accountId: r.account_id, jobId: r.job_id }));
  }
}

/**
 * Guards of billing's appends, run inside the append's transaction under the log lock (so the rows
 * they read cannot change before the append commits).
 */
export const balanceGuards = {
  /** A reservation of `amount` for `jobId` fits the account's balance (or was already made: idempotent). */
  async reservable(tx: SqlTx, accountId: string, jobId: string, amount: number): Promise<void> {
    const existing = await tx.query(`SELECT 1 FROM credit_reservations WHERE job_id = $1`, [jobId]);
    if (existing.length > 0) return;
    const rows = await tx.query<{ available: string }>(`SELECT available FROM account_balances WHERE account_id = $1`, [accountId]);
    if (rows.length === 0) throw new DomainError('not_found', 'No such account.');
    const available = Number(rows[0].available);
    if (available < amount) {
      throw new DomainError('insufficient_credits', `The balance (${available}) is lower than the ${amount} credits the job needs.`, {
        balance: available,
        required: amount,
      });
    }
  },
  /**
   * SubmitJob: the job's reservation is still held. One released meanwhile (the api took longer than
   * the reservation timeout between reserve and append) refuses the job: its credits are gone.
   */
  async jobMayBeCreated(tx: SqlTx, jobId: string): Promise<void> {
    const rows = await tx.query<{ status: string }>(`SELECT status FROM credit_reservations WHERE job_id = $1`, [jobId]);
    if (rows[0]?.status !== 'held') {
      throw new DomainError('billing_unavailable', 'The credits reserved for this job were released before it was created; submit again.');
    }
  },
  /** The reservation is still held by no job (a job that appeared meanwhile keeps its credits). */
  async releasable(tx: SqlTx, jobId: string): Promise<void> {
    const rows = await tx.query<{ status: string }>(`SELECT status FROM credit_reservations WHERE job_id = $1`, [jobId]);
    if (rows[0]?.status !== 'held') throw new ReservationInUse(jobId);
  },
};

/** Thrown by the releasable guard: the job exists (or the reservation is settled), nothing is released. */
export class ReservationInUse extends Error {
  constructor(readonly jobId: string) {
    super(`The reservation of ${jobId} is not held by a missing job.`);
    this.name = 'ReservationInUse';
  }
}

function toView(r: BalanceRow): AccountBalance {
  return {
    id: r.account_id,
    object: 'account',
    name: r.name,
    balance: Number(r.available),
    reserved: Number(r.reserved),
    charged: Number(r.charged),
    created_at: new Date(r.opened_at).toISOString(),
    max_concurrent_jobs: r.max_concurrent_jobs,
  };
}

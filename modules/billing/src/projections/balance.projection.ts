import { categoryOf, type StoredEvent } from '@upscaler/contracts';
import { ACCOUNT_EVENT_TYPES } from '../model/account.events';
import type { InlineProjection, SqlTx } from '@upscaler/eventstore';

const CREDIT_EVENTS = new Set<string>(ACCOUNT_EVENT_TYPES);
const JOB_EVENTS = new Set(['JobQueued', 'JobSucceeded', 'JobFailed', 'JobCancelled']);

/**
 * Balances and each job's credits (docs/design.md §2), applied inside the transaction of the append that moves
 * them: an account opened or granted credits, a reservation made or released (billing), and a job's
 * one-time final event, which is its charge (succeeded) or refund (failed, cancelled). So the moment a
 * final job state is visible anywhere, its settlement is too (settled on final), with no consumer in
 * between.
 *
 * Exactly once: a reservation row moves held -> job -> charged | refunded, and credits move only with
 * a row that actually changed status, so a repeated event (a rebuild, a legacy CreditsCharged beside
 * the final event of the same job) moves nothing twice. The amount is the reservation's.
 */
export class BalanceProjection implements InlineProjection {
  readonly name = 'balances';

  handles(event: StoredEvent): boolean {
    return CREDIT_EVENTS.has(event.type) || (JOB_EVENTS.has(event.type) && categoryOf(event.streamId) === 'job');
  }

  async reset(tx: SqlTx): Promise<void> {
    await tx.query('DELETE FROM credit_reservations');
    await tx.query('DELETE FROM account_balances');
  }

  async apply(tx: SqlTx, events: StoredEvent[]): Promise<void> {
    for (const e of events) await this.applyOne(tx, e);
  }

  private async applyOne(tx: SqlTx, e: StoredEvent): Promise<void> {
    const d = e.data as Record<string, unknown>;
    switch (e.type) {
      case 'AccountOpened':
        await tx.query(
          `INSERT INTO account_balances (account_id, name, opened_at, position) VALUES ($1, $2, $3, $4) ON CONFLICT DO NOTHING`,
          [d.accountId, d.name, d.openedAt, e.position],
        );
        return;
      case 'CreditsGranted':
        await tx.query(
          `UPDATE account_balances SET granted = granted + $2, available = available + $2, position = $3
            WHERE account_id = $1 AND position < $3`,
          [d.accountId, d.amount, e.position],
        );
        return;
      case 'AccountLimitsSet':
        await tx.query(`UPDATE account_balances SET max_concurrent_jobs = $2, position = $3 WHERE account_id = $1 AND position < $3`, [
          d.accountId,
          d.maxConcurrentJobs,
          e.position,
        ]);
        return;
      case 'CreditsReserved':
        return reserve(tx, String(d.jobId), String(d.accountId), Number(d.amount), String(d.reservedAt));
      case 'JobQueued':
        return attachJob(tx, String(d.jobId));
      case 'CreditsCharged':
        return settle(tx, String(d.jobId), 'charged', String(d.chargedAt));
      case 'CreditsRefunded':
        return settle(tx, String(d.jobId), 'refunded', String(d.refundedAt));
      case 'JobSucceeded':
        // Final events written before settlement moved into them carry no credits: those jobs were
        // settled by the CreditsCharged/CreditsRefunded billing appended then.
        if (typeof d.credits === 'number') await settle(tx, String(d.jobId), 'charged', String(d.finishedAt));
        return;
      case 'JobFailed':
        if (typeof d.credits === 'number') await settle(tx, String(d.jobId), 'refunded', String(d.finishedAt));
        return;
      case 'JobCancelled':
        if (typeof d.credits === 'number') await settle(tx, String(d.jobId), 'refunded', String(d.cancelledAt));
        return;
    }
  }
}

async function reserve(tx: SqlTx, jobId: string, accountId: string, amount: number, at: string): Promise<void> {
  const inserted = await tx.query(
    `INSERT INTO credit_reservations (job_id, account_id, amount, status, reserved_at) VALUES ($1, $2, $3, 'held', $4)
     ON CONFLICT DO NOTHING RETURNING job_id`,
    [jobId, accountId, amount, at],
  );
  if (inserted.length === 0) return;
  await tx.query(`UPDATE account_balances SET available = available - $2, reserved = reserved + $2 WHERE account_id = $1`, [
    accountId,
    amount,
  ]);
}

/** The job now exists: its reservation can no longer expire (billing's sweep releases only held ones). */
async function attachJob(tx: SqlTx, jobId: string): Promise<void> {
  await tx.query(`UPDATE credit_reservations SET status = 'job' WHERE job_id = $1 AND status = 'held'`, [jobId]);
}

async function settle(tx: SqlTx, jobId: string, outcome: 'charged' | 'refunded', at: string): Promise<void> {
  const rows = await tx.query<{ account_id: string; amount: number }>(
    `UPDATE credit_reservations SET status = $2, settled_at = $3 WHERE job_id = $1 AND status IN ('held', 'job')
     RETURNING account_id, amount`,
    [jobId, outcome, at],
  );
  if (rows.length === 0) return;
  const { account_id, amount } = rows[0];
  await tx.query(
    outcome === 'charged'
      ? `UPDATE account_balances SET reserved = reserved - $2, charged = charged + $2 WHERE account_id = $1`
      : `UPDATE account_balances SET reserved = reserved - $2, available = available + $2 WHERE account_id = $1`,
    [account_id, amount],
  );
}

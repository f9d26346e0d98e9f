import type { DataSource } from 'typeorm';

/**
 * Billing's one query over the log: reservations older than a cut-off that were never settled and
 * whose job stream does not exist (the api died between reserve and append, or gave up waiting).
 */
export class ReservationsRepository {
  constructor(private readonly db: DataSource) {}

  async orphaned(olderThan: Date, limit = 100): Promise<Array<{ accountId: string; jobId: string }>> {
    const rows: Array<{ account_id: string; job_id: string }> = await this.db.query(
      `SELECT e.data->>'accountId' AS account_id, e.data->>'jobId' AS job_id
         FROM events e
        WHERE e.type = 'CreditsReserved' AND e.created_at < $1
          AND NOT EXISTS (SELECT 1 FROM events j WHERE j.stream_id = 'job-' || (e.data->>'jobId'))
          AND NOT EXISTS (SELECT 1 FROM events s
                           WHERE s.stream_id = e.stream_id
                             AND s.type IN ('CreditsCharged', 'CreditsRefunded')
                             AND s.data->>'jobId' = e.data->>'jobId')
        ORDER BY e.position
        LIMIT $2`,
      [olderThan.toISOString(), limit],
    );
    return rows.map((r) => ({ accountId: r.account_id, jobId: r.job_id }));
  }
}

import { sqlMigration } from '@upscaler/postgres';

/**
 * The work queue (docs/distributed.md, "The work queue"): one row per unfinished job, written by the
 * queue projection in the transaction of each job event, leased by processors with
 * `FOR UPDATE SKIP LOCKED`. Leases are not events: a lease is a processor's claim on one attempt,
 * renewed while the engine runs; its loss is recorded in the job's stream (JobAttemptLost).
 */
export const WorkQueue1764000000100 = sqlMigration('WorkQueue1764000000100', {
  up: [
    `
      CREATE TABLE work_queue (
        job_id           text PRIMARY KEY,
        account_id       text NOT NULL,
        status           text NOT NULL CHECK (status IN ('queued', 'processing', 'pending')),
        enqueued_at      timestamptz NOT NULL,
        run_at           timestamptz NOT NULL,
        attempt          integer NOT NULL DEFAULT 0,
        lease_token      uuid,
        lease_owner      text,
        lease_expires_at timestamptz,
        claimed_at       timestamptz,
        -- W3C trace context of the submit (JobQueued's metadata), so the processor's span continues its trace
        trace            jsonb NOT NULL DEFAULT '{}'::jsonb,
        CHECK ((lease_token IS NULL) = (lease_expires_at IS NULL))
      )`,
    // What a claim looks for: an account's oldest queued job nobody holds.
    `CREATE INDEX work_queue_ready_idx ON work_queue (account_id, enqueued_at, job_id) WHERE status = 'queued' AND lease_token IS NULL`,
    // What the per-account limit counts, and what the sweeper looks for.
    `CREATE INDEX work_queue_leased_idx ON work_queue (account_id) WHERE lease_token IS NOT NULL`,
    `CREATE INDEX work_queue_expiry_idx ON work_queue (lease_expires_at) WHERE lease_token IS NOT NULL`,
    `CREATE INDEX work_queue_pending_idx ON work_queue (run_at) WHERE status = 'pending'`,
    // Fair share: the account served longest ago goes first. max_running mirrors AccountLimitsSet.
    `
      CREATE TABLE work_queue_accounts (
        account_id      text PRIMARY KEY,
        last_claimed_at timestamptz,
        max_running     integer CHECK (max_running IS NULL OR max_running > 0)
      )`,
  ],
  down: [`DROP TABLE work_queue_accounts`, `DROP TABLE work_queue`],
});

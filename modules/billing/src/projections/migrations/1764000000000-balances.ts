import { sqlMigration } from '@upscaler/postgres';

/**
 * Balances (docs/design.md §2, settled on final): one row per account and one per job's credits, written by the
 * balance projection inside the transaction of every append that moves credits. GET /account reads
 * one row, whatever the account's history; reservations check the row under the log lock. The CHECKs
 * are the invariant's last line: no account below zero, granted = available + reserved + charged.
 */
export const Balances1764000000000 = sqlMigration('Balances1764000000000', {
  up: [
    `
      CREATE TABLE account_balances (
        account_id          text PRIMARY KEY,
        name                text NOT NULL,
        opened_at           timestamptz NOT NULL,
        granted             bigint NOT NULL DEFAULT 0,
        available           bigint NOT NULL DEFAULT 0 CHECK (available >= 0),
        reserved            bigint NOT NULL DEFAULT 0 CHECK (reserved >= 0),
        charged             bigint NOT NULL DEFAULT 0 CHECK (charged >= 0),
        max_concurrent_jobs integer,
        -- the last account-stream event applied: grants are applied once, even by an overlapping rebuild
        position            bigint NOT NULL,
        CONSTRAINT account_balances_invariant CHECK (granted = available + reserved + charged)
      )`,
    // held: reserved, no job yet; job: its job exists and is not final; charged / refunded: settled.
    `
      CREATE TABLE credit_reservations (
        job_id      text PRIMARY KEY,
        account_id  text NOT NULL,
        amount      integer NOT NULL CHECK (amount > 0),
        status      text NOT NULL CHECK (status IN ('held', 'job', 'charged', 'refunded')),
        reserved_at timestamptz NOT NULL,
        settled_at  timestamptz
      )`,
    `CREATE INDEX credit_reservations_held_idx ON credit_reservations (reserved_at) WHERE status = 'held'`,
  ],
  down: [`DROP TABLE credit_reservations`, `DROP TABLE account_balances`],
});

import { sqlMigration } from '@upscaler/postgres';

/**
 * Read models (docs/design.md §2): the latest state of every stream, folded with the stream's own decider,
 * plus the columns the queries filter on. Rebuildable from position 0 (`npm run rebuild-read-models`).
 */
export const ReadModels1732200000100 = sqlMigration('ReadModels1732200000100', {
  up: [
    `
      CREATE TABLE read_models (
        stream_id   text PRIMARY KEY,
        category    text NOT NULL,
        entity_id   text NOT NULL,
        account_id  text,
        parent_id   text,
        status      text,
        lookup      text,
        state       jsonb NOT NULL,
        version     integer NOT NULL,
        position    bigint NOT NULL,
        created_at  timestamptz NOT NULL,
        updated_at  timestamptz NOT NULL,
        next_at     timestamptz
      )`,
    `CREATE INDEX read_models_account_idx ON read_models (category, account_id, entity_id DESC)`,
    `CREATE INDEX read_models_status_idx ON read_models (category, account_id, status, entity_id DESC)`,
    `CREATE UNIQUE INDEX read_models_lookup_idx ON read_models (category, lookup) WHERE lookup IS NOT NULL`,
    `CREATE INDEX read_models_parent_idx ON read_models (category, parent_id, entity_id DESC)`,
    `CREATE INDEX read_models_due_idx ON read_models (category, next_at) WHERE next_at IS NOT NULL`,
    // Per-key request counters (rate limits correct across api replicas, docs/design.md §4). Not business
    // state: rows are short-lived and pruned.
    `
      CREATE TABLE rate_limit_windows (
        key_id        text NOT NULL,
        window_start  timestamptz NOT NULL,
        count         integer NOT NULL,
        PRIMARY KEY (key_id, window_start)
      )`,
  ],
  down: [`DROP TABLE rate_limit_windows`, `DROP TABLE read_models`],
});

import { sqlMigration } from '@upscaler/postgres';

/**
 * The append-only event log (docs/design.md §2). Rows never change: a statement trigger refuses UPDATE,
 * DELETE and TRUNCATE in the database itself, so no code path (or hand-written SQL) can rewrite
 * history. The oldest timestamp of the repo: every other module's migrations come after it.
 */
export const CreateEventLog1700000000000 = sqlMigration('CreateEventLog1700000000000', {
  up: [
    `
      CREATE TABLE events (
        position   bigserial   PRIMARY KEY,
        stream_id  text        NOT NULL,
        version    int         NOT NULL CHECK (version > 0),
        type       text        NOT NULL,
        data       jsonb       NOT NULL,
        metadata   jsonb       NOT NULL DEFAULT '{}'::jsonb,
        created_at timestamptz NOT NULL DEFAULT now(),
        CONSTRAINT events_stream_version_key UNIQUE (stream_id, version)
      )`,
    // readAll(filter by category) tails one category without scanning the others.
    `CREATE INDEX events_category_position_idx ON events (split_part(stream_id, '-', 1), position)`,
    `
      CREATE FUNCTION events_refuse_change() RETURNS trigger LANGUAGE plpgsql AS $$
      BEGIN
        RAISE EXCEPTION 'the event log is append-only: % on events is refused', TG_OP
          USING ERRCODE = 'restrict_violation';
      END
      $$`,
    `
      CREATE TRIGGER events_append_only
        BEFORE UPDATE OR DELETE OR TRUNCATE ON events
        FOR EACH STATEMENT EXECUTE FUNCTION events_refuse_change()`,
  ],
  down: [`DROP TABLE events`, `DROP FUNCTION events_refuse_change()`],
});

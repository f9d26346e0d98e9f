import { sqlMigration } from '@upscaler/postgres';

/** Consumer checkpoints (docs/design.md §2): how far each durable consumer has read the log. */
export const CreateCheckpoints1700000000001 = sqlMigration('CreateCheckpoints1700000000001', {
  up: [
    `
      CREATE TABLE checkpoints (
        consumer   text        PRIMARY KEY,
        position   bigint      NOT NULL CHECK (position >= 0),
        updated_at timestamptz NOT NULL DEFAULT now()
      )`,
  ],
  down: [`DROP TABLE checkpoints`],
});

import type { MigrationInterface, QueryRunner } from 'typeorm';

/** Consumer checkpoints (docs/design.md §2): how far each durable consumer has read the log. */
export class CreateCheckpoints1700000000001 implements MigrationInterface {
  name = 'CreateCheckpoints1700000000001';

  async up(q: QueryRunner): Promise<void> {
    await q.query(`
      CREATE TABLE checkpoints (
        consumer   text        PRIMARY KEY,
        position   bigint      NOT NULL CHECK (position >= 0),
        updated_at timestamptz NOT NULL DEFAULT now()
      )`);
  }

  async down(q: QueryRunner): Promise<void> {
    await q.query(`DROP TABLE checkpoints`);
  }
}

import type { MigrationInterface, QueryRunner } from 'typeorm';
import type { MigrationClass } from './data-source';

/**
 * A migration file's one shape: SQL statements run in order going up, and the ones that undo them going down. `name`
 * ends in the 13-digit millisecond timestamp by which TypeORM orders migrations (and records them in its table).
 */
export function sqlMigration(name: string, sql: { up: readonly string[]; down: readonly string[] }): MigrationClass {
  if (!/\d{13}$/.test(name)) throw new Error(`migration name ${name} must end in a 13-digit timestamp`);
  const run = async (q: QueryRunner, statements: readonly string[]) => {
    for (const s of statements) await q.query(s);
  };
  return class implements MigrationInterface {
    name = name;
    up = (q: QueryRunner) => run(q, sql.up);
    down = (q: QueryRunner) => run(q, sql.down);
  };
}

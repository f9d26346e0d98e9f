import type { MigrationInterface, QueryRunner } from 'typeorm';
import { useTestPostgres } from '@upscaler/testing';
import { createDataSource, runMigrations } from '@upscaler/postgres';

const pg = useTestPostgres();

/** Migrations that record the order they ran in; the second one is slow to widen the race window. */
class CreateLedger1800000000000 implements MigrationInterface {
  async up(q: QueryRunner): Promise<void> {
    await q.query(`CREATE TABLE ran (name text NOT NULL, at timestamptz NOT NULL DEFAULT clock_timestamp())`);
    await q.query(`INSERT INTO ran (name) VALUES ('ledger')`);
  }
  async down(q: QueryRunner): Promise<void> {
    await q.query(`DROP TABLE ran`);
  }
}
class AddSlowIndex1800000000001 implements MigrationInterface {
  async up(q: QueryRunner): Promise<void> {
    await q.query(`SELECT pg_sleep(0.3)`);
    await q.query(`INSERT INTO ran (name) VALUES ('slow')`);
  }
  async down(): Promise<void> {}
}
class Broken1800000000002 implements MigrationInterface {
  async up(q: QueryRunner): Promise<void> {
    await q.query(`INSERT INTO ran (name) VALUES ('broken')`);
    await q.query(`SELECT no_such_function()`);
  }
  async down(): Promise<void> {}
}

describe('createDataSource / runMigrations', () => {
  it('applies explicit migrations in timestamp order, once, even when several processes start together', async () => {
    const url = await pg.createDatabase('migrations');
    // Passed out of order on purpose: TypeORM orders by the timestamp in the class name.
    const replicas = [1, 2, 3].map(() => createDataSource(url, [AddSlowIndex1800000000001, CreateLedger1800000000000], { poolSize: 3 }));
    try {
      const applied = await Promise.all(replicas.map((ds) => runMigrations(ds)));
      expect(applied.flat()).toEqual(['CreateLedger1800000000000', 'AddSlowIndex1800000000001']);
      expect(applied.filter((names) => names.length === 0)).toHaveLength(2);
      const ran: Array<{ name: string }> = await replicas[0].query(`SELECT name FROM ran ORDER BY at`);
      expect(ran.map((r) => r.name)).toEqual(['ledger', 'slow']);
      expect(await runMigrations(replicas[1])).toEqual([]);
    } finally {
      await Promise.all(replicas.map((ds) => ds.destroy()));
    }
  });

  it('a failing migration rolls back alone and stops the run; the ones before it stay applied', async () => {
    const url = await pg.createDatabase('broken');
    const ds = createDataSource(url, [CreateLedger1800000000000, Broken1800000000002]);
    try {
      await expect(runMigrations(ds)).rejects.toThrow('function no_such_function() does not exist');
      const ran: Array<{ name: string }> = await ds.query(`SELECT name FROM ran`);
      expect(ran.map((r) => r.name)).toEqual(['ledger']);
      const recorded: Array<{ name: string }> = await ds.query(`SELECT name FROM migrations ORDER BY id`);
      expect(recorded.map((r) => r.name)).toEqual(['CreateLedger1800000000000']);
    } finally {
      await ds.destroy();
    }
  });

  it('never synchronizes the schema from entities and does not run migrations on initialize', async () => {
    const url = await pg.createDatabase('nosync');
    const ds = createDataSource(url, [CreateLedger1800000000000]);
    expect(ds.options).toMatchObject({ type: 'postgres', synchronize: false, migrationsRun: false, poolSize: 10 });
    await ds.initialize();
    try {
      const tables: Array<{ n: string }> = await ds.query(
        `SELECT count(*)::text AS n FROM information_schema.tables WHERE table_schema = 'public'`,
      );
      expect(tables[0].n).toBe('0');
    } finally {
      await ds.destroy();
    }
  });
});

import type { QueryRunner } from 'typeorm';
import { sqlMigration } from './sql-migration';

describe('sqlMigration: a migration file as its SQL', () => {
  const ran: string[] = [];
  const q = { query: (s: string) => Promise.resolve(void ran.push(s)) } as unknown as QueryRunner;

  it('runs the up statements in order, then the down ones, under the name TypeORM records', async () => {
    const Migration = sqlMigration('Example1764000000999', {
      up: ['CREATE TABLE a ()', 'CREATE INDEX a_idx ON a ()'],
      down: ['DROP TABLE a'],
    });
    const m = new Migration();
    await m.up(q);
    await m.down(q);
    expect([m.name, ran]).toEqual(['Example1764000000999', ['CREATE TABLE a ()', 'CREATE INDEX a_idx ON a ()', 'DROP TABLE a']]);
  });

  it('refuses a name without the 13-digit timestamp TypeORM orders by', () => {
    expect(() => sqlMigration('Example', { up: [], down: [] })).toThrow('migration name Example must end in a 13-digit timestamp');
  });
});

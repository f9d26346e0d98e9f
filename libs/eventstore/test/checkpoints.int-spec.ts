import type { DataSource } from 'typeorm';
import { useTestPostgres } from '@upscaler/testing';
import { EVENT_STORE_MIGRATIONS, PostgresCheckpointStore, resetCheckpoint } from '@upscaler/eventstore';

const pg = useTestPostgres();

describe('PostgresCheckpointStore', () => {
  let db: DataSource;
  let checkpoints: PostgresCheckpointStore;
  beforeAll(async () => {
    db = await pg.dataSource(EVENT_STORE_MIGRATIONS);
    checkpoints = new PostgresCheckpointStore(db);
  });

  it('a consumer that never saved starts at 0', async () => {
    expect(await checkpoints.load('never-seen')).toBe(0);
  });

  it('saves, overwrites and loads per consumer', async () => {
    await checkpoints.save('projector', 41);
    await checkpoints.save('webhooks', 7);
    await checkpoints.save('projector', 9_007_199_254_740);
    expect(await checkpoints.load('projector')).toBe(9_007_199_254_740);
    expect(await checkpoints.load('webhooks')).toBe(7);
  });

  it('reset (projection rebuild) makes the consumer start again from 0', async () => {
    await checkpoints.save('rebuild-me', 120);
    await checkpoints.reset('rebuild-me');
    expect(await checkpoints.load('rebuild-me')).toBe(0);
    await checkpoints.save('rebuild-me-too', 5);
    await resetCheckpoint(db, 'rebuild-me-too');
    expect(await checkpoints.load('rebuild-me-too')).toBe(0);
  });

  it('saved inside a transaction, it commits or rolls back with the projection writes', async () => {
    await checkpoints.save('atomic', 10);
    await expect(
      db.transaction(async (tx) => {
        await checkpoints.save('atomic', 20, tx);
        throw new Error('projection write failed');
      }),
    ).rejects.toThrow('projection write failed');
    expect(await checkpoints.load('atomic')).toBe(10);
    await db.transaction((tx) => checkpoints.save('atomic', 30, tx));
    expect(await checkpoints.load('atomic')).toBe(30);
  });

  it('refuses a negative or fractional position', async () => {
    await expect(checkpoints.save('bad', -1)).rejects.toThrow('checkpoint position must be an integer >= 0, got -1');
    await expect(checkpoints.save('bad', 1.5)).rejects.toThrow('checkpoint position must be an integer >= 0, got 1.5');
  });
});

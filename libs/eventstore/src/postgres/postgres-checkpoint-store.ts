import type { DataSource, EntityManager } from 'typeorm';
import type { CheckpointStore } from '../checkpoint-store';

/** Checkpoints in the `checkpoints` table (migration CreateCheckpoints1700000000001). */
export class PostgresCheckpointStore implements CheckpointStore {
  constructor(private readonly dataSource: DataSource) {}

  async load(consumer: string): Promise<number> {
    const rows: Array<{ position: string }> = await this.dataSource.query(
      'SELECT position::text AS position FROM checkpoints WHERE consumer = $1',
      [consumer],
    );
    return rows.length === 0 ? 0 : Number(rows[0].position);
  }

  async save(consumer: string, position: number, manager?: EntityManager): Promise<void> {
    if (!Number.isInteger(position) || position < 0) throw new Error(`checkpoint position must be an integer >= 0, got ${position}`);
    await (manager ?? this.dataSource.manager).query(
      `INSERT INTO checkpoints (consumer, position, updated_at) VALUES ($1, $2, now())
       ON CONFLICT (consumer) DO UPDATE SET position = EXCLUDED.position, updated_at = now()`,
      [consumer, position],
    );
  }

  async reset(consumer: string): Promise<void> {
    await resetCheckpoint(this.dataSource, consumer);
  }
}

/**
 * Makes `consumer` start again from position 0 (part of rebuilding a projection: the projection's
 * owner empties its tables, resets its checkpoint, and restarts the consumer). Run it while the
 * consumer is stopped: a running one would save its in-memory position over the reset.
 */
export async function resetCheckpoint(dataSource: DataSource, consumer: string): Promise<void> {
  await dataSource.query('DELETE FROM checkpoints WHERE consumer = $1', [consumer]);
}

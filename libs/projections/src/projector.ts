import { categoryOf, type StoredEvent } from '@upscaler/contracts';
import type { InlineProjection, SqlTx } from '@upscaler/eventstore';
import type { ProjectionDef } from './projection-def';

/**
 * Folds events into `read_models`, inside the transaction of the append that wrote them (an inline
 * projection, registered on the event store by buildRuntime): once an append returns, every reader
 * of a read model sees it, in every process, and no service applies projections by hand.
 * Idempotent: an event at or below the row's version changes nothing (a rebuild, or a replayed
 * append). A gap (the row is behind by more than one, e.g. a stream written before its category was
 * projected) is healed by re-folding the stream from the log, through the same transaction.
 */
export class Projector implements InlineProjection {
  readonly name = 'read-models';
  private readonly defs = new Map<string, ProjectionDef>();

  constructor(defs: ProjectionDef[]) {
    for (const d of defs) this.defs.set(d.category, d as ProjectionDef);
  }

  handles(event: StoredEvent): boolean {
    return this.defs.has(categoryOf(event.streamId));
  }

  async apply(tx: SqlTx, events: StoredEvent[]): Promise<void> {
    for (const event of events) await this.applyOne(tx, event);
  }

  async reset(tx: SqlTx): Promise<void> {
    await tx.query(`DELETE FROM read_models`);
  }

  private async applyOne(tx: SqlTx, event: StoredEvent): Promise<void> {
    const def = this.defs.get(categoryOf(event.streamId));
    if (!def) return;
    const rows = await tx.query<{ state: unknown; version: number }>(
      `SELECT state, version FROM read_models WHERE stream_id = $1 FOR UPDATE`,
      [event.streamId],
    );
    const row = rows[0];
    if (row && event.version <= row.version) return;
    let state: unknown;
    let version: number;
    let position = Number(event.position);
    if ((!row && event.version === 1) || (row && event.version === row.version + 1)) {
      state = def.evolve(row ? row.state : def.initialState(), event);
      version = event.version;
    } else {
      const all = await tx.query<{ type: string; data: unknown; version: number; position: string }>(
        `SELECT type, data, version, position FROM events WHERE stream_id = $1 AND version <= $2 ORDER BY version`,
        [event.streamId, event.version],
      );
      state = all.reduce((s, e) => def.evolve(s, e), def.initialState());
      version = all.length;
      position = Math.max(position, ...all.map((e) => Number(e.position)));
    }
    await upsert(tx, def, event.streamId, state, version, position);
  }
}

async function upsert(tx: SqlTx, def: ProjectionDef, streamId: string, state: unknown, version: number, position: number): Promise<void> {
  const c = def.columns(state, streamId);
  await tx.query(
    `INSERT INTO read_models (stream_id, category, entity_id, account_id, parent_id, status, lookup, state, version, position, created_at, updated_at, next_at)
     VALUES ($1,$2,$3,$4,$5,$6,$7,$8,$9,$10,$11, now(), $12)
     ON CONFLICT (stream_id) DO UPDATE SET
       account_id = EXCLUDED.account_id, parent_id = EXCLUDED.parent_id, status = EXCLUDED.status,
       lookup = EXCLUDED.lookup, state = EXCLUDED.state, version = EXCLUDED.version,
       position = EXCLUDED.position, updated_at = now(), next_at = EXCLUDED.next_at`,
    [
      streamId,
      def.category,
      c.entityId,
      c.accountId,
      c.parentId ?? null,
      c.status,
      c.lookup ?? null,
      JSON.stringify(state),
      version,
      position,
      c.createdAt,
      c.nextAt ?? null,
    ],
  );
}

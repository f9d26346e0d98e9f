import type { DataSource, EntityManager } from 'typeorm';
import { categoryOf, type StoredEvent } from '@upscaler/contracts';
import type { EventStore } from '@upscaler/eventstore';
import type { ProjectionDef } from './projection-def';

/**
 * Applies events to `read_models`. Idempotent: an event at or below the row's version changes
 * nothing, so the same event may arrive inline (right after its append, for read-your-writes) and
 * again from the log subscription. A gap (the row is behind by more than one) is healed by
 * re-folding the whole stream from the log.
 */
export class Projector {
  private readonly defs = new Map<string, ProjectionDef>();

  constructor(
    private readonly db: DataSource,
    private readonly store: EventStore,
    defs: ProjectionDef[],
  ) {
    for (const d of defs) this.defs.set(d.category, d as ProjectionDef);
  }

  handles(category: string): boolean {
    return this.defs.has(category);
  }

  get categories(): string[] {
    return [...this.defs.keys()];
  }

  async apply(events: StoredEvent[]): Promise<void> {
    for (const event of events) await this.applyOne(event);
  }

  async applyOne(event: StoredEvent): Promise<void> {
    const def = this.defs.get(categoryOf(event.streamId));
    if (!def) return;
    await this.db.transaction(async (tx) => {
      // Serialise appliers of one stream (several api replicas, inline + subscription).
      await tx.query(`SELECT pg_advisory_xact_lock(hashtext($1))`, [event.streamId]);
      const rows: Array<{ state: unknown; version: number }> = await tx.query(
        `SELECT state, version FROM read_models WHERE stream_id = $1`,
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
        const all = (await this.store.readStream(event.streamId)).filter((e) => e.version <= event.version);
        state = all.reduce((s, e) => def.evolve(s, e), def.initialState());
        version = all.length;
        position = Math.max(position, ...all.map((e) => Number(e.position)));
      }
      await upsert(tx, def, event.streamId, state, version, position);
    });
  }

  /** Re-folds every projected stream from position 0 (the documented rebuild command). */
  async rebuild(batch = 1000): Promise<number> {
    await this.db.query(`DELETE FROM read_models`);
    let after = 0;
    let count = 0;
    for (;;) {
      const events = await this.store.readAll(after, batch, { categories: this.categories });
      if (events.length === 0) break;
      await this.apply(events);
      count += events.length;
      after = Number(events[events.length - 1].position);
    }
    return count;
  }
}

async function upsert(
  tx: EntityManager,
  def: ProjectionDef,
  streamId: string,
  state: unknown,
  version: number,
  position: number,
): Promise<void> {
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

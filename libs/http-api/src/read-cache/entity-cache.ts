import type { LogTail } from './log-tail';

/** A load that takes longer than this does not fill the cache (changes are remembered this long). */
const LOAD_MAX_MS = 1_000;

/** When a load began, for `put`. */
export interface LoadStart {
  at: number;
  following: boolean;
}

/**
 * Values of one category's read models in memory (at most `max`, oldest dropped first), found by a lookup key (a
 * job id, a key's hash) and dropped when the log shows a change of their entity (LogTail). A value answers only
 * while the tail is fresh; a value loaded from Postgres is kept only if no later version of its entity has been
 * read from the log meanwhile (its load raced with a change).
 */
export class EntityCache<V> {
  private readonly entries = new Map<string, { entity: string; value: V }>();
  private readonly lookupOf = new Map<string, string>();
  /** Entities changed in the last LOAD_MAX_MS and more: the version of their latest event and when it was read. */
  private readonly changed = new Map<string, { version: number; at: number }>();

  constructor(
    private readonly tail: LogTail,
    category: string,
    private readonly max: number,
  ) {
    tail.on(category, (e) => this.change(e.streamId.slice(category.length + 1), e.version));
  }

  get(lookup: string): V | undefined {
    return this.tail.fresh() ? this.entries.get(lookup)?.value : undefined;
  }

  /** Call before loading a value from Postgres; pass the result to `put`. */
  loadStart(): LoadStart {
    return { at: Date.now(), following: this.tail.following() };
  }

  /** Keeps a value read from its read model at `version`, unless the log has shown a change of it since. */
  put(lookup: string, entity: string, value: V, version: number, start: LoadStart): void {
    const now = Date.now();
    if (!start.following || now - start.at > LOAD_MAX_MS) return;
    const changed = this.changed.get(entity);
    if (changed && changed.version > version) return;
    if (!this.entries.has(lookup) && this.entries.size >= this.max) this.drop(this.entries.keys().next().value!);
    this.entries.set(lookup, { entity, value });
    this.lookupOf.set(entity, lookup);
  }

  private change(entity: string, version: number): void {
    const lookup = this.lookupOf.get(entity);
    if (lookup !== undefined) this.drop(lookup);
    const now = Date.now();
    this.changed.delete(entity);
    this.changed.set(entity, { version, at: now });
    // oldest first: forget what no load can still be racing with
    for (const [e, c] of this.changed) {
      if (now - c.at <= 2 * LOAD_MAX_MS) break;
      this.changed.delete(e);
    }
  }

  private drop(lookup: string): void {
    const entry = this.entries.get(lookup);
    if (!entry) return;
    this.entries.delete(lookup);
    this.lookupOf.delete(entry.entity);
  }
}

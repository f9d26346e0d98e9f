/**
 * The folded state of recently commanded streams, so that a command reads only the events appended since
 * (docs/design.md §2). Safe because the log is append-only (the database refuses UPDATE, DELETE and TRUNCATE of
 * events) and `evolve` is pure: the state at version v is the same whenever it is computed. An account's
 * ledger stream grows with every job it ever ran; without this, each reserve and settlement re-read and
 * re-folded the whole history. Least-recently-used entries are dropped past `maxStreams`.
 */
export class StreamStateCache<S> {
  private readonly entries = new Map<string, { version: number; state: S }>();

  constructor(private readonly maxStreams = 10_000) {}

  get(streamId: string): { version: number; state: S } | undefined {
    const hit = this.entries.get(streamId);
    if (hit) {
      // refresh its place in the LRU order
      this.entries.delete(streamId);
      this.entries.set(streamId, hit);
    }
    return hit;
  }

  set(streamId: string, version: number, state: S): void {
    const held = this.entries.get(streamId);
    if (held && held.version > version) return; // a concurrent command already cached a later version
    this.entries.delete(streamId);
    this.entries.set(streamId, { version, state });
    if (this.entries.size > this.maxStreams) this.entries.delete(this.entries.keys().next().value as string);
  }

  delete(streamId: string): void {
    this.entries.delete(streamId);
  }

  get size(): number {
    return this.entries.size;
  }
}

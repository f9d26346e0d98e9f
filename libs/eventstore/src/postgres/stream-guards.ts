import type { SqlTx } from '../event-store.port';

/** Thrown by `streamGuards.atVersion`: the other stream moved on, the append is refused. */
export class StreamMovedError extends Error {
  constructor(
    readonly streamId: string,
    readonly expected: number,
    readonly actual: number,
  ) {
    super(`stream ${streamId} is at version ${actual}, not ${expected}`);
    this.name = 'StreamMovedError';
  }
}

/** Guards (AppendOptions.guard) on a stream other than the one appended to, checked under the append's log lock. */
export const streamGuards = {
  /** `streamId` is still at `version`: nobody appended to it since this request did. */
  async atVersion(tx: SqlTx, streamId: string, version: number): Promise<void> {
    const rows = await tx.query<{ version: number | null }>(`SELECT max(version) AS version FROM events WHERE stream_id = $1`, [streamId]);
    const actual = rows[0]?.version ?? 0;
    if (actual !== version) throw new StreamMovedError(streamId, version, actual);
  },
};

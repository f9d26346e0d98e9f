import type { StoredEvent } from '@upscaler/contracts';

/** A row of `events` as node-postgres returns it (bigint as text, timestamptz as Date). */
export interface EventRow {
  position: string;
  stream_id: string;
  version: number;
  type: string;
  data: unknown;
  metadata: Record<string, string> | null;
  created_at: Date;
}

export const EVENT_COLUMNS = 'position, stream_id, version, type, data, metadata, created_at';

export function toStoredEvent(row: EventRow): StoredEvent {
  return {
    position: Number(row.position),
    streamId: row.stream_id,
    version: row.version,
    type: row.type,
    data: row.data,
    metadata: row.metadata ?? {},
    createdAt: row.created_at.toISOString(),
  };
}

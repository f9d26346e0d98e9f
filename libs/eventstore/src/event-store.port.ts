import type { NewEvent, StoredEvent } from '@upscaler/contracts';

/**
 * The append-only event log (DESIGN 2). Appends use optimistic concurrency on (stream, expected
 * version); positions are global and become visible in commit order (a reader tailing by position
 * never skips an event that commits later with a lower position).
 */
export type ExpectedVersion =
  /** The stream must not exist yet. */
  | 'no_stream'
  /** Append whatever the current version is (use only where order inside the stream does not matter). */
  | 'any'
  /** The stream's current version must equal this (0 = no stream). */
  | number;

export interface AppendResult {
  /** Version of the stream after the append. */
  nextVersion: number;
  /** Global position of the last appended event. */
  lastPosition: number;
  events: StoredEvent[];
}

export interface EventStore {
  /** Throws `WrongExpectedVersionError` on a concurrency conflict; nothing is written then. */
  append(streamId: string, expected: ExpectedVersion, events: NewEvent[]): Promise<AppendResult>;
  /** Events of one stream in version order, those with version > `afterVersion` (default 0: all; empty: none). */
  readStream(streamId: string, afterVersion?: number): Promise<StoredEvent[]>;
  /** Events with position > `after`, in position order, at most `limit`. */
  readAll(after: number, limit: number, filter?: { categories?: string[]; types?: string[] }): Promise<StoredEvent[]>;
  /** Highest committed position (0 when empty). */
  headPosition(): Promise<number>;
  /** Resolves (soon) after new events were appended by this process or another (LISTEN/NOTIFY + poll). */
  onAppended(listener: (lastPosition: number) => void): () => void;
}

export class WrongExpectedVersionError extends Error {
  constructor(
    readonly streamId: string,
    readonly expected: ExpectedVersion,
    readonly actual: number,
  ) {
    super(`Wrong expected version for ${streamId}: expected ${String(expected)}, actual ${actual}`);
    this.name = 'WrongExpectedVersionError';
  }
}

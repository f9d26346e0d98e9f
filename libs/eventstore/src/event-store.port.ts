import type { NewEvent, StoredEvent } from '@upscaler/contracts';

/**
 * The append-only event log (docs/design.md §2). Appends use optimistic concurrency on (stream, expected
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

/**
 * The open transaction of an append, for the code that must see or write the database atomically with
 * it: inline projections and guards. Everything done through it commits or rolls back with the events.
 */
export interface SqlTx {
  query<T = Record<string, unknown>>(sql: string, params?: unknown[]): Promise<T[]>;
}

/**
 * A projection run inside every append's transaction (emmett's inline projections): the events and
 * the projection's rows commit together, so a reader of the projection never sees an event's effect
 * missing once the append returned, nor an effect without its event. It runs after the log lock is
 * taken (appends are serialised, see PostgresEventStore.append), so it must be short, and it must be
 * idempotent by event (a rebuild applies the same events again from position 0).
 */
export interface InlineProjection {
  readonly name: string;
  /** Whether `apply` wants this event (cheap: called for every appended event). */
  handles(event: StoredEvent): boolean;
  /** The stored events of one append that `handles` accepted, in order. Throwing rolls the append back. */
  apply(tx: SqlTx, events: StoredEvent[]): Promise<void>;
  /** Empties the projection's rows before a rebuild from position 0. */
  reset(tx: SqlTx): Promise<void>;
}

export interface AppendOptions {
  /**
   * Runs inside the append's transaction, after the log lock and before the version check: a
   * precondition on other rows (a lease still held, a balance still sufficient) that no concurrent
   * append can change until this one commits. Throwing aborts the append; nothing is written.
   */
  guard?: (tx: SqlTx) => Promise<void>;
}

export interface EventStore {
  /** Throws `WrongExpectedVersionError` on a concurrency conflict; nothing is written then. */
  append(streamId: string, expected: ExpectedVersion, events: NewEvent[], opts?: AppendOptions): Promise<AppendResult>;
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

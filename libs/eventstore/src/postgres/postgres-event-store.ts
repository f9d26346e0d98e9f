import type { NewEvent, StoredEvent } from '@upscaler/contracts';
import type { ClientConfig } from 'pg';
import type { DataSource, QueryRunner } from 'typeorm';
import type { PostgresConnectionOptions } from 'typeorm/driver/postgres/PostgresConnectionOptions';
import {
  WrongExpectedVersionError,
  type AppendOptions,
  type AppendResult,
  type EventStore,
  type ExpectedVersion,
  type InlineProjection,
  type SqlTx,
} from '../event-store.port';
import { EVENT_COLUMNS, toStoredEvent, type EventRow } from './event-row';
import { PgNotificationListener } from './pg-notification-listener';

/**
 * Transaction-level advisory lock every append takes (arbitrary constant: "upsc"). See `append`.
 */
export const EVENT_LOG_LOCK_KEY = 0x75707363;
/** NOTIFY channel; the payload is the last appended position. */
export const EVENTS_CHANNEL = 'upscale_events';

/** Stream ids are `<category>-<id>` (contracts `streams`); readAll filters on the category. */
const STREAM_ID = /^[a-z][a-z0-9]*-.+$/;

export interface PostgresEventStoreOptions {
  /** Delay before re-opening the LISTEN connection after it broke. Default 1000 ms. */
  listenRetryDelayMs?: number;
  onListenError?: (err: Error) => void;
  /** Projections applied inside every append's transaction (read models, balances, the work queue). */
  inlineProjections?: InlineProjection[];
}

/** The event log (docs/design.md §2) on Postgres, through the TypeORM DataSource's pool (raw SQL). */
export class PostgresEventStore implements EventStore {
  private readonly listeners = new Set<(lastPosition: number) => void>();
  private listener: PgNotificationListener | undefined;
  /** Highest position announced to listeners: wake-ups are cumulative, older ones carry no news. */
  private announced = 0;

  constructor(
    private readonly dataSource: DataSource,
    private readonly opts: PostgresEventStoreOptions = {},
  ) {}

  /**
   * One transaction: lock, check the expected version, insert, notify, commit.
   *
   * Why the global lock: `position` comes from a sequence, and sequence values are handed out when a
   * transaction inserts, not when it commits. Without serialisation, T1 could take position 7, T2
   * position 8, T2 commit first, and a reader tailing `position > checkpoint` would read 8, move its
   * checkpoint to 8, and never see 7 when T1 commits a moment later. Holding
   * `pg_advisory_xact_lock(EVENT_LOG_LOCK_KEY)` from before the insert until commit (the lock is
   * released only after the commit is visible) makes appends take positions and commit one at a
   * time, so positions become visible in increasing order and "every position <= the highest one I
   * can see is already visible" holds for every reader. The cost is one append at a time across the
   * whole log, which is short (a few inserts) and fine for this service's write rate.
   * Readers take no lock.
   */
  async append(streamId: string, expected: ExpectedVersion, events: NewEvent[], opts: AppendOptions = {}): Promise<AppendResult> {
    if (!STREAM_ID.test(streamId)) throw new Error(`invalid stream id "${streamId}" (want <category>-<id>)`);
    const runner = this.dataSource.createQueryRunner();
    await runner.connect();
    let rows: EventRow[];
    let current: number;
    try {
      await runner.startTransaction();
      await runner.query('SELECT pg_advisory_xact_lock($1)', [EVENT_LOG_LOCK_KEY]);
      const tx = txOf(runner);
      if (opts.guard) await opts.guard(tx);
      current = await streamVersion(runner, streamId);
      if (!matches(expected, current)) throw new WrongExpectedVersionError(streamId, expected, current);
      if (events.length === 0) {
        await runner.commitTransaction();
        return { nextVersion: current, lastPosition: 0, events: [] };
      }
      rows = await insertEvents(runner, streamId, current, events);
      await this.project(tx, rows.map(toStoredEvent));
      await runner.query('SELECT pg_notify($1, $2)', [EVENTS_CHANNEL, rows[rows.length - 1].position]);
      await runner.commitTransaction();
    } catch (err) {
      if (runner.isTransactionActive) await runner.rollbackTransaction().catch(() => undefined);
      // Belt and braces: the lock makes this unreachable for writers that use this class, but a
      // writer bypassing it (or a future change) still gets a conflict, never a duplicate version.
      if (isUniqueViolation(err)) {
        throw new WrongExpectedVersionError(streamId, expected, await this.currentVersion(streamId));
      }
      throw err;
    } finally {
      await runner.release();
    }
    const stored = rows.map(toStoredEvent);
    const lastPosition = stored[stored.length - 1].position;
    // Same-process listeners wake now, without waiting for the NOTIFY round trip.
    this.announce(lastPosition);
    return { nextVersion: current + stored.length, lastPosition, events: stored };
  }

  /**
   * Applies the inline projections to events already in the log (a projection rebuild), in one
   * transaction under the log lock per batch, so a rebuild never interleaves with live appends.
   */
  async projectInline(events: StoredEvent[], only?: (p: InlineProjection) => boolean): Promise<void> {
    if (events.length === 0) return;
    await this.dataSource.transaction(async (manager) => {
      await manager.query('SELECT pg_advisory_xact_lock($1)', [EVENT_LOG_LOCK_KEY]);
      await this.project(txOf(manager.queryRunner!), events, only);
    });
  }

  private async project(tx: SqlTx, events: StoredEvent[], only?: (p: InlineProjection) => boolean): Promise<void> {
    for (const projection of this.opts.inlineProjections ?? []) {
      if (only && !only(projection)) continue;
      const mine = events.filter((e) => projection.handles(e));
      if (mine.length > 0) await projection.apply(tx, mine);
    }
  }

  async readStream(streamId: string, afterVersion = 0): Promise<StoredEvent[]> {
    const rows: EventRow[] = await this.dataSource.query(
      `SELECT ${EVENT_COLUMNS} FROM events WHERE stream_id = $1 AND version > $2 ORDER BY version`,
      [streamId, afterVersion],
    );
    return rows.map(toStoredEvent);
  }

  /**
   * An empty `categories` or `types` list matches nothing (it is a filter, not "no filter");
   * omit the field to not filter on it.
   */
  async readAll(after: number, limit: number, filter: { categories?: string[]; types?: string[] } = {}): Promise<StoredEvent[]> {
    if (!Number.isInteger(limit) || limit <= 0) throw new Error(`readAll: limit must be a positive integer, got ${limit}`);
    const params: unknown[] = [after, limit];
    const where = ['position > $1'];
    if (filter.categories) {
      params.push(filter.categories);
      where.push(`split_part(stream_id, '-', 1) = ANY($${params.length}::text[])`);
    }
    if (filter.types) {
      params.push(filter.types);
      where.push(`type = ANY($${params.length}::text[])`);
    }
    const rows: EventRow[] = await this.dataSource.query(
      `SELECT ${EVENT_COLUMNS} FROM events WHERE ${where.join(' AND ')} ORDER BY position LIMIT $2`,
      params,
    );
    return rows.map(toStoredEvent);
  }

  async headPosition(): Promise<number> {
    const [row]: Array<{ head: string }> = await this.dataSource.query('SELECT coalesce(max(position), 0)::text AS head FROM events');
    return Number(row.head);
  }

  /**
   * Wakes `listener` after appends by this process (immediately) or any other (NOTIFY on a
   * dedicated LISTEN connection, opened with the first listener). After the LISTEN connection is
   * (re)established, listeners are woken with the head position, since notifications sent while it
   * was down are lost. Wake-ups may repeat or coalesce: treat the argument as "the log reached at
   * least this position" and read from your checkpoint.
   */
  onAppended(listener: (lastPosition: number) => void): () => void {
    this.listeners.add(listener);
    this.ensureListening();
    return () => {
      this.listeners.delete(listener);
    };
  }

  /** Closes the LISTEN connection (the DataSource is the caller's to destroy). */
  async close(): Promise<void> {
    const listener = this.listener;
    this.listener = undefined;
    this.listeners.clear();
    await listener?.stop();
  }

  private ensureListening(): void {
    if (this.listener) return;
    this.listener = new PgNotificationListener(
      pgConfigOf(this.dataSource),
      EVENTS_CHANNEL,
      {
        onNotification: (payload) => {
          const position = Number(payload);
          if (Number.isFinite(position)) this.announce(position);
        },
        onConnected: () => {
          this.headPosition().then(
            (head) => this.announce(head),
            (err: Error) => this.opts.onListenError?.(err),
          );
        },
        onError: (err) => this.opts.onListenError?.(err),
      },
      this.opts.listenRetryDelayMs,
    );
    this.listener.start();
  }

  private announce(position: number): void {
    if (position <= this.announced) return;
    this.announced = position;
    for (const listener of [...this.listeners]) {
      try {
        listener(position);
      } catch {
        // A listener's failure must not stop the others from waking.
      }
    }
  }

  private async currentVersion(streamId: string): Promise<number> {
    const [row]: Array<{ v: number }> = await this.dataSource.query(
      'SELECT coalesce(max(version), 0)::int AS v FROM events WHERE stream_id = $1',
      [streamId],
    );
    return row.v;
  }
}

/**
 * The open transaction as `SqlTx`. Rows always: TypeORM's plain `query` answers UPDATE and DELETE
 * with `[rows, rowCount]`, its structured result has the rows in `records` for every command.
 */
export function txOf(runner: QueryRunner): SqlTx {
  return { query: async (sql, params) => (await runner.query(sql, params, true)).records };
}

/** One statement on the pool, answered with its rows whatever the command (see txOf). */
export async function sqlRows<T = Record<string, unknown>>(dataSource: DataSource, sql: string, params?: unknown[]): Promise<T[]> {
  const runner = dataSource.createQueryRunner();
  try {
    return await txOf(runner).query<T>(sql, params);
  } finally {
    await runner.release();
  }
}

async function streamVersion(runner: QueryRunner, streamId: string): Promise<number> {
  const [row]: Array<{ v: number }> = await runner.query('SELECT coalesce(max(version), 0)::int AS v FROM events WHERE stream_id = $1', [
    streamId,
  ]);
  return row.v;
}

function matches(expected: ExpectedVersion, current: number): boolean {
  if (expected === 'any') return true;
  if (expected === 'no_stream') return current === 0;
  return expected === current;
}

async function insertEvents(runner: QueryRunner, streamId: string, current: number, events: NewEvent[]): Promise<EventRow[]> {
  const params: unknown[] = [streamId];
  const values = events.map((e, i) => {
    // JSON.stringify explicitly: node-postgres would turn a top-level array into a Postgres array.
    params.push(current + i + 1, e.type, JSON.stringify(e.data ?? null), JSON.stringify(e.metadata ?? {}));
    const n = params.length;
    return `($1, $${n - 3}, $${n - 2}, $${n - 1}::jsonb, $${n}::jsonb)`;
  });
  return runner.query(
    `INSERT INTO events (stream_id, version, type, data, metadata) VALUES ${values.join(', ')}
     RETURNING ${EVENT_COLUMNS}`,
    params,
  );
}

function isUniqueViolation(err: unknown): boolean {
  const e = err as { code?: string; constraint?: string; driverError?: { code?: string; constraint?: string } };
  const code = e.code ?? e.driverError?.code;
  const constraint = e.constraint ?? e.driverError?.constraint;
  return code === '23505' && constraint === 'events_stream_version_key';
}

/** Connection settings of the DataSource, for a dedicated LISTEN client. */
export function pgConfigOf(dataSource: DataSource): ClientConfig {
  const o = dataSource.options as PostgresConnectionOptions;
  return {
    connectionString: o.url,
    host: o.host,
    port: o.port,
    user: o.username,
    password: typeof o.password === 'string' ? o.password : undefined,
    database: o.database,
    ssl: o.ssl as ClientConfig['ssl'],
    application_name: `${o.applicationName ?? 'upscaler'}-listen`,
  };
}

import type { DataSource } from 'typeorm';

/** The only code that reads `read_models` (and the rate-limit counters). */
export interface ReadModelRow<S = unknown> {
  streamId: string;
  entityId: string;
  accountId: string | null;
  parentId: string | null;
  status: string | null;
  state: S;
  version: number;
  position: number;
}

interface RawRow {
  stream_id: string;
  entity_id: string;
  account_id: string | null;
  parent_id: string | null;
  status: string | null;
  state: unknown;
  version: number;
  position: string;
}

function toRow<S>(r: RawRow): ReadModelRow<S> {
  return {
    streamId: r.stream_id,
    entityId: r.entity_id,
    accountId: r.account_id,
    parentId: r.parent_id,
    status: r.status,
    state: r.state as S,
    version: r.version,
    position: Number(r.position),
  };
}

const COLUMNS = 'stream_id, entity_id, account_id, parent_id, status, state, version, position';

export interface PageQuery {
  accountId?: string;
  parentId?: string;
  status?: string;
  limit: number;
  /** Entity id of the last item of the previous page: the page continues strictly below it. */
  startingAfter?: string;
}

/** A rate-limit counter after an add: the hits of every api replica in `bucket`'s window starting at `windowStart` (ms). */
export interface RateLimitTotal {
  bucket: string;
  windowStart: number;
  total: number;
}

export class ReadModelRepository {
  constructor(private readonly db: DataSource) {}

  async byStream<S>(streamId: string): Promise<ReadModelRow<S> | null> {
    const rows: RawRow[] = await this.db.query(`SELECT ${COLUMNS} FROM read_models WHERE stream_id = $1`, [streamId]);
    return rows[0] ? toRow<S>(rows[0]) : null;
  }

  async byLookup<S>(category: string, lookup: string): Promise<ReadModelRow<S> | null> {
    const rows: RawRow[] = await this.db.query(`SELECT ${COLUMNS} FROM read_models WHERE category = $1 AND lookup = $2`, [
      category,
      lookup,
    ]);
    return rows[0] ? toRow<S>(rows[0]) : null;
  }

  /**
   * Newest first by id (ids are time-ordered, docs/design.md §4): a page continues strictly below the cursor,
   * so items created during a walk land above it and a walk neither skips nor repeats.
   * Fetches limit+1 rows to know whether more exist.
   */
  async page<S>(category: string, q: PageQuery): Promise<{ items: ReadModelRow<S>[]; hasMore: boolean }> {
    const where = ['category = $1'];
    const params: unknown[] = [category];
    if (q.accountId !== undefined) {
      params.push(q.accountId);
      where.push(`account_id = $${params.length}`);
    }
    if (q.parentId !== undefined) {
      params.push(q.parentId);
      where.push(`parent_id = $${params.length}`);
    }
    if (q.status !== undefined) {
      params.push(q.status);
      where.push(`status = $${params.length}`);
    }
    if (q.startingAfter !== undefined) {
      params.push(q.startingAfter);
      where.push(`entity_id < $${params.length}`);
    }
    params.push(q.limit + 1);
    const rows: RawRow[] = await this.db.query(
      `SELECT ${COLUMNS} FROM read_models WHERE ${where.join(' AND ')} ORDER BY entity_id DESC LIMIT $${params.length}`,
      params,
    );
    const items = rows.slice(0, q.limit).map((r) => toRow<S>(r));
    return { items, hasMore: rows.length > q.limit };
  }

  async all<S>(category: string, filter: { accountId?: string; status?: string; parentId?: string }): Promise<ReadModelRow<S>[]> {
    return (await this.page<S>(category, { ...filter, limit: 10_000 })).items;
  }

  /** How many rows of a category are in each status (scrape-time gauges: jobs by status, queue depth). */
  async countByStatus(category: string): Promise<Map<string, number>> {
    const rows: Array<{ status: string; n: string }> = await this.db.query(
      'SELECT status, count(*) AS n FROM read_models WHERE category = $1 GROUP BY status',
      [category],
    );
    return new Map(rows.map((r) => [r.status, Number(r.n)]));
  }

  /** How many rows of a category are due now, by the database's clock (a backlog gauge: webhook deliveries due). */
  async countDue(category: string): Promise<number> {
    const rows: Array<{ n: string }> = await this.db.query(
      'SELECT count(*) AS n FROM read_models WHERE category = $1 AND next_at IS NOT NULL AND next_at <= now()',
      [category],
    );
    return Number(rows[0]?.n ?? 0);
  }

  /**
   * Rows whose `next_at` is due (webhook deliveries to attempt, final jobs whose files' retention ran out), oldest
   * first; with `statuses`, only rows in one of them.
   */
  async due<S>(category: string, now: Date, limit: number, statuses?: readonly string[]): Promise<ReadModelRow<S>[]> {
    const rows: RawRow[] = await this.db.query(
      `SELECT ${COLUMNS} FROM read_models WHERE category = $1 AND next_at IS NOT NULL AND next_at <= $2` +
        (statuses ? ' AND status = ANY($4)' : '') +
        ' ORDER BY next_at LIMIT $3',
      statuses ? [category, now.toISOString(), limit, statuses] : [category, now.toISOString(), limit],
    );
    return rows.map((r) => toRow<S>(r));
  }

  /**
   * Due rows in turns (webhook deliveries, docs/operations.md "Webhook delivery scheduling"): at most `perParent` of
   * each parent (an endpoint: its oldest due), at most `perAccount` of each account, the accounts' first rows before
   * anyone's second, and so on, oldest first within a turn. An endpoint with thousands due thus fills at most its
   * share of the page, and every other account's oldest due row comes back however long that backlog is.
   */
  async dueInTurns<S>(
    category: string,
    now: Date,
    q: { perParent: number; perAccount: number; limit: number },
  ): Promise<ReadModelRow<S>[]> {
    const rows: RawRow[] = await this.db.query(
      `WITH due AS (
         SELECT stream_id, account_id, next_at,
                row_number() OVER (PARTITION BY parent_id ORDER BY next_at, stream_id) AS parent_turn
         FROM read_models WHERE category = $1 AND next_at IS NOT NULL AND next_at <= $2
       ), kept AS (
         SELECT stream_id, next_at,
                row_number() OVER (PARTITION BY account_id ORDER BY parent_turn, next_at, stream_id) AS account_turn
         FROM due WHERE parent_turn <= $3
       )
       SELECT ${COLUMNS.split(', ')
         .map((c) => `r.${c}`)
         .join(', ')}
       FROM kept JOIN read_models r USING (stream_id)
       WHERE kept.account_turn <= $4
       ORDER BY kept.account_turn, kept.next_at, kept.stream_id LIMIT $5`,
      [category, now.toISOString(), q.perParent, q.perAccount, q.limit],
    );
    return rows.map((r) => toRow<S>(r));
  }

  /**
   * Adds each bucket's hits to its window's counter and returns every such counter's total after the add (the
   * api's rate limiter settles the hits it counted in memory this way; docs/api.md "Rate limits"). One
   * statement, atomic per row across api replicas; rows are locked in (bucket, window) order, so two replicas
   * settling overlapping buckets at once cannot deadlock.
   */
  async addRateLimitHits(hits: Array<{ bucket: string; windowStart: number; count: number }>): Promise<RateLimitTotal[]> {
    if (hits.length === 0) return [];
    const sorted = [...hits].sort((a, b) => (a.bucket < b.bucket ? -1 : a.bucket > b.bucket ? 1 : a.windowStart - b.windowStart));
    const rows: Array<{ key_id: string; window_start: Date; count: number }> = await this.db.query(
      `INSERT INTO rate_limit_windows (key_id, window_start, count)
       SELECT h.key_id, h.window_start, h.count FROM unnest($1::text[], $2::timestamptz[], $3::int[]) WITH ORDINALITY AS h(key_id, window_start, count, i)
       ORDER BY h.i
       ON CONFLICT (key_id, window_start) DO UPDATE SET count = rate_limit_windows.count + EXCLUDED.count
       RETURNING key_id, window_start, count`,
      [sorted.map((h) => h.bucket), sorted.map((h) => new Date(h.windowStart).toISOString()), sorted.map((h) => h.count)],
    );
    return rows.map((r) => ({ bucket: r.key_id, windowStart: new Date(r.window_start).getTime(), total: r.count }));
  }

  async pruneRateLimits(before: Date): Promise<void> {
    await this.db.query(`DELETE FROM rate_limit_windows WHERE window_start < $1`, [before.toISOString()]);
  }
}

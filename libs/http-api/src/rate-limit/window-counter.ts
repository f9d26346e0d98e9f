import type { RateLimitTotal } from '@upscaler/projections';

/** Where every replica's hits meet: adds hits to windows' counters atomically and returns the totals after. */
export interface RateLimitStore {
  addRateLimitHits(hits: Array<{ bucket: string; windowStart: number; count: number }>): Promise<RateLimitTotal[]>;
}

export const WINDOW_MS = 60_000;
/** How often a replica sends the hits it counted in memory to the shared store (and learns the others'). */
export const SETTLE_EVERY_MS = 100;
/** Above this many buckets in a window, new ones are counted in the store directly (memory stays bounded). */
const MAX_BUCKETS = 100_000;

/** Share of the limit, at the end of a window, within which every hit is counted in the store before it is answered. */
const EXACT_SHARE = 0.1;

interface Waiter {
  resolve(count: number): void;
  reject(err: unknown): void;
}

/** One bucket's window as this replica sees it. */
interface View {
  bucket: string;
  windowStart: number;
  /** The store's total at the last add of this replica (every replica's hits until then, ours included). */
  shared: number;
  /** Our hits on their way to the store (in an add not answered yet). */
  sending: number;
  /** Our hits counted since, not sent yet. */
  local: number;
  /** Whether `shared` was read from the store in this window. */
  known: boolean;
  /** An add of this bucket is under way: adds of one bucket go one at a time. */
  busy: boolean;
  /** Hits that wait for an exact count: sent, in arrival order, with the bucket's next add. */
  waiters: Waiter[];
}

/**
 * Fixed one-minute windows per bucket (an API key or a client address), correct across api replicas without a
 * write per request (docs/api.md "Rate limits"). Each replica counts hits in memory and settles them with the
 * shared store every SETTLE_EVERY_MS in one statement, which returns every replica's total. A hit is answered
 * from memory while this replica's view (the store's last total + its own hits since) leaves more than a tenth
 * of the limit, or once the store's total is already past the limit (then it is refused without asking: an
 * over-limit client costs no writes). The first hit of a bucket in a window, and every hit in the last tenth,
 * waits for the store instead (hits that arrive together share one add), so a single replica is exact, a
 * restarted one starts from the shared count, and several replicas stay exact unless the others take more than
 * a tenth of the limit within one settle interval that this replica has not seen yet: over the limit, a window
 * can admit at most the hits that the other replicas answered from memory in the last settle interval before
 * they saw the end coming.
 *
 * rate-limiter-flexible (the well-kept library) was considered: its store limiters (RateLimiterPostgres and the
 * others) write every hit to the store, and its in-memory layers only refuse keys already over the limit
 * (inMemoryBlockOnConsumed) or stand in while the store is down (insuranceLimiter); none batches a replica's hits,
 * which is what takes the write off the hot path. Hence this counter.
 */
export class WindowCounter {
  private readonly views = new Map<string, View>();
  private timer: NodeJS.Timeout | undefined;
  private settling: Promise<void> | undefined;

  constructor(
    private readonly store: RateLimitStore,
    /** The clock the windows follow (ms). */
    private readonly now: () => number,
    private readonly onSettleError: (err: unknown) => void = () => undefined,
  ) {}

  /** Settles every SETTLE_EVERY_MS until stop(). */
  start(): void {
    this.timer ??= setInterval(() => void this.settle(), SETTLE_EVERY_MS);
    this.timer.unref();
  }

  /** Stops the timer and sends what is left. */
  async stop(): Promise<void> {
    if (this.timer) clearInterval(this.timer);
    this.timer = undefined;
    await this.settling;
    await this.settle();
  }

  /**
   * Counts a hit on `bucket` in the window of `windowStart` (ms) against `limit`; gives the hit's count in its
   * window (1 for the window's first hit anywhere): past `limit` the hit is over the limit. Hits over the limit
   * count too.
   */
  hit(bucket: string, limit: number, windowStart: number): number | Promise<number> {
    const id = `${windowStart}:${bucket}`;
    let view = this.views.get(id);
    if (!view) {
      if (this.views.size >= MAX_BUCKETS) {
        return this.store.addRateLimitHits([{ bucket, windowStart, count: 1 }]).then((totals) => totals[0].total);
      }
      view = { bucket, windowStart, shared: 0, sending: 0, local: 0, known: false, busy: false, waiters: [] };
      this.views.set(id, view);
    }
    const seen = view.shared + view.sending + view.local;
    const exactFrom = limit - Math.max(1, Math.ceil(limit * EXACT_SHARE));
    if (view.known && view.waiters.length === 0 && (seen + 1 <= exactFrom || view.shared >= limit)) {
      view.local += 1;
      return seen + 1;
    }
    return new Promise<number>((resolve, reject) => {
      view.waiters.push({ resolve, reject });
      this.addNow(view);
    });
  }

  /** Sends every bucket's counted hits in one add and learns every replica's totals. */
  async settle(): Promise<void> {
    if (this.settling) return this.settling;
    this.settling = this.settleOnce().finally(() => (this.settling = undefined));
    return this.settling;
  }

  private async settleOnce(): Promise<void> {
    const current = Math.floor(this.now() / WINDOW_MS) * WINDOW_MS;
    const batch: View[] = [];
    for (const [id, view] of this.views) {
      if (view.busy) continue;
      if (view.local > 0) {
        view.sending = view.local;
        view.local = 0;
        view.busy = true;
        batch.push(view);
      } else if (view.windowStart < current - WINDOW_MS && view.waiters.length === 0) {
        // past windows no request can count in any more (one window of grace for replicas' clocks apart)
        this.views.delete(id);
      }
    }
    if (batch.length === 0) return;
    try {
      const totals = await this.store.addRateLimitHits(
        batch.map((v) => ({ bucket: v.bucket, windowStart: v.windowStart, count: v.sending })),
      );
      const byId = new Map(totals.map((t) => [`${t.windowStart}:${t.bucket}`, t.total]));
      for (const view of batch) this.settled(view, byId.get(`${view.windowStart}:${view.bucket}`) ?? view.shared + view.sending);
    } catch (err) {
      // kept, and sent with the next settle
      for (const view of batch) this.unsent(view, 0);
      this.onSettleError(err);
    } finally {
      for (const view of batch) this.next(view);
    }
  }

  /** One add for the waiters of `view` (and its counted hits with them), unless one is under way already. */
  private addNow(view: View): void {
    if (view.busy || view.waiters.length === 0) return;
    const waiters = view.waiters;
    view.waiters = [];
    view.sending = view.local + waiters.length;
    view.local = 0;
    view.busy = true;
    this.store.addRateLimitHits([{ bucket: view.bucket, windowStart: view.windowStart, count: view.sending }]).then(
      (totals) => {
        const total = totals[0]?.total ?? view.shared + view.sending;
        this.settled(view, total);
        // the waiters' hits are the add's last ones, in arrival order
        waiters.forEach((w, i) => w.resolve(total - waiters.length + 1 + i));
        this.next(view);
      },
      (err: unknown) => {
        // Postgres cannot count (away, or its disk full): the waiters are answered from this replica's own count, so
        // reads and polls keep working; the limit holds per replica until the store answers, and the hits go with
        // the next add (docs/api.md "Rate limits").
        const before = view.shared + view.sending - waiters.length;
        this.unsent(view, 0);
        waiters.forEach((w, i) => w.resolve(before + 1 + i));
        this.onSettleError(err);
        this.next(view);
      },
    );
  }

  private settled(view: View, total: number): void {
    view.shared = Math.max(view.shared, total);
    view.sending = 0;
    view.known = true;
  }

  /** An add failed: its counted hits go back to `local`, but for `waiters` of them (not counted again). */
  private unsent(view: View, waiters: number): void {
    view.local += view.sending - waiters;
    view.sending = 0;
  }

  private next(view: View): void {
    view.busy = false;
    this.addNow(view);
  }
}

import type { RateLimitTotal } from '@upscaler/projections';
import { WindowCounter, type RateLimitStore } from './window-counter';

const W = 1_764_000_000_000 - (1_764_000_000_000 % 60_000); // a window's start

/** The shared counters in memory (what rate_limit_windows holds), with every add recorded. */
class MemoryStore implements RateLimitStore {
  readonly totals = new Map<string, number>();
  readonly adds: Array<Array<{ bucket: string; count: number }>> = [];
  failing = false;

  async addRateLimitHits(hits: Array<{ bucket: string; windowStart: number; count: number }>): Promise<RateLimitTotal[]> {
    this.adds.push(hits.map((h) => ({ bucket: h.bucket, count: h.count })));
    await Promise.resolve();
    if (this.failing) throw new Error('connection refused');
    return hits.map((h) => {
      const id = `${h.windowStart}:${h.bucket}`;
      const total = (this.totals.get(id) ?? 0) + h.count;
      this.totals.set(id, total);
      return { bucket: h.bucket, windowStart: h.windowStart, total };
    });
  }

  total(bucket: string, windowStart = W): number {
    return this.totals.get(`${windowStart}:${bucket}`) ?? 0;
  }
}

const counter = (store: RateLimitStore, now = W + 1_000) => new WindowCounter(store, () => now);

describe('WindowCounter: fixed one-minute windows counted in memory, settled with the shared store (docs/api.md "Rate limits")', () => {
  it("one replica is exact: the window's first hit asks the store, the next ones are answered from memory and settled in one add", async () => {
    const store = new MemoryStore();
    const c = counter(store);
    const counts = [await c.hit('key_a', 60, W)];
    for (let i = 0; i < 9; i++) counts.push(await c.hit('key_a', 60, W));
    expect(counts).toEqual([1, 2, 3, 4, 5, 6, 7, 8, 9, 10]);
    expect(store.adds).toEqual([[{ bucket: 'key_a', count: 1 }]]);
    await c.settle();
    expect(store.adds[1]).toEqual([{ bucket: 'key_a', count: 9 }]);
    expect(store.total('key_a')).toBe(10);
    expect(await c.hit('key_a', 60, W)).toBe(11);
  });

  it('one add per settle for every bucket with hits; a settle with nothing counted asks nothing', async () => {
    const store = new MemoryStore();
    const c = counter(store);
    await Promise.all([c.hit('a', 60, W), c.hit('b', 60, W)]);
    for (let i = 0; i < 3; i++) await Promise.all([c.hit('a', 60, W), c.hit('b', 60, W)]);
    store.adds.length = 0;
    await c.settle();
    await c.settle();
    expect(store.adds).toEqual([
      [
        { bucket: 'a', count: 3 },
        { bucket: 'b', count: 3 },
      ],
    ]);
  });

  it('the last tenth of the limit is counted in the store before it is answered; past the limit, hits are refused from memory', async () => {
    const store = new MemoryStore();
    const c = counter(store);
    const counts: number[] = [];
    for (let i = 0; i < 14; i++) counts.push(await c.hit('k', 10, W));
    expect(counts).toEqual([1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14]);
    // 1: the window's first; 10: the last tenth (it sends 2..9 with it). The store then holds the limit: 11..14 are
    // refused without asking (and settled later)
    expect(store.adds.map((a) => a[0].count)).toEqual([1, 9]);
    await c.settle();
    expect(store.total('k')).toBe(14);
  });

  it('hits that arrive together at the first sight of a bucket share one add and get their counts in arrival order', async () => {
    const store = new MemoryStore();
    const c = counter(store);
    const counts = await Promise.all(Array.from({ length: 10 }, () => Promise.resolve(c.hit('k', 5, W))));
    expect(counts).toEqual([1, 2, 3, 4, 5, 6, 7, 8, 9, 10]);
    expect(store.adds.map((a) => a[0].count)).toEqual([1, 9]);
  });

  it("a new window starts from the store's count of that window", async () => {
    const store = new MemoryStore();
    const c = counter(store);
    await c.hit('k', 60, W);
    await c.hit('k', 60, W);
    expect(await c.hit('k', 60, W + 60_000)).toBe(1);
    await c.settle();
    expect([store.total('k'), store.total('k', W + 60_000)]).toEqual([2, 1]);
  });

  it('a replica that starts (or restarts) mid-window learns the count so far from its first hit', async () => {
    const store = new MemoryStore();
    const first = counter(store);
    for (let i = 0; i < 30; i++) await first.hit('k', 60, W);
    await first.settle();
    expect(await counter(store).hit('k', 60, W)).toBe(31);
  });

  it('two replicas on one store: hits split between them, settling every 4 hits, admit the limit and no more', async () => {
    const store = new MemoryStore();
    const replicas = [counter(store), counter(store)];
    let admitted = 0;
    for (let i = 0; i < 200; i++) {
      if ((await replicas[i % 2].hit('k', 60, W)) <= 60) admitted += 1;
      if (i % 4 === 3) await Promise.all(replicas.map((r) => r.settle()));
    }
    expect(admitted).toBe(60);
  });

  it('a settle that fails keeps its hits for the next one; a hit that waits for the store is answered from memory', async () => {
    const store = new MemoryStore();
    const errors: unknown[] = [];
    const c = new WindowCounter(
      store,
      () => W,
      (e) => errors.push(e),
    );
    await c.hit('k', 60, W);
    await c.hit('k', 60, W);
    await c.hit('k', 60, W);
    store.failing = true;
    await c.settle();
    expect(errors).toHaveLength(1);
    expect([await c.hit('other', 60, W), await c.hit('other', 60, W)]).toEqual([1, 2]);
    expect(errors).toHaveLength(3);
    store.failing = false;
    expect(await c.hit('k', 60, W)).toBe(4);
    await c.settle();
    expect([store.total('k'), store.total('other')]).toEqual([4, 2]);
  });

  it('stop() sends what is left', async () => {
    const store = new MemoryStore();
    const c = counter(store);
    c.start();
    await c.hit('k', 60, W);
    await c.hit('k', 60, W);
    await c.stop();
    expect(store.total('k')).toBe(2);
  });
});

import { LazyConnection } from './lazy-connection';

class FakeClient {
  connects = 0;
  disconnects = 0;
  constructor(private readonly failConnects: number) {}
  connect(): Promise<void> {
    this.connects++;
    return this.connects <= this.failConnects ? Promise.reject(new Error('broker down')) : Promise.resolve();
  }
  disconnect(): Promise<void> {
    this.disconnects++;
    return Promise.resolve();
  }
}

describe('LazyConnection: a Kafka client connected on first use', () => {
  it('connects once and hands every caller the same client; close disconnects it', async () => {
    const made: FakeClient[] = [];
    const lazy = new LazyConnection(() => made[made.push(new FakeClient(0)) - 1]);
    const [a, b] = await Promise.all([lazy.get(), lazy.get()]);
    expect([a === b, made.length, made[0].connects]).toEqual([true, 1, 1]);
    await lazy.close();
    expect(made[0].disconnects).toBe(1);
  });

  it('forgets a failed connect, so the next use makes a new client and tries again', async () => {
    const made: FakeClient[] = [];
    const lazy = new LazyConnection(() => made[made.push(new FakeClient(made.length === 0 ? 1 : 0)) - 1]);
    await expect(lazy.get()).rejects.toThrow('broker down');
    await expect(lazy.get()).resolves.toBe(made[1]);
    expect(made.map((c) => c.connects)).toEqual([1, 1]);
  });

  it('closes without a client and never throws', async () => {
    const lazy = new LazyConnection(() => new FakeClient(5));
    await expect(lazy.close()).resolves.toBeUndefined();
    await expect(lazy.get()).rejects.toThrow('broker down');
    await expect(lazy.close()).resolves.toBeUndefined();
  });
});

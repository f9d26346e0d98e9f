import { PerKeyQueue } from './per-key-queue';

const tick = () => new Promise((r) => setTimeout(r, 5));

describe('PerKeyQueue', () => {
  it('runs the tasks of one key one after another, in order, never two at once', async () => {
    const q = new PerKeyQueue();
    const log: string[] = [];
    let running = 0;
    let most = 0;
    const task = (name: string) => async () => {
      running++;
      most = Math.max(most, running);
      log.push(`start ${name}`);
      await tick();
      log.push(`end ${name}`);
      running--;
      return name;
    };
    const results = await Promise.all(['a', 'b', 'c'].map((n) => q.run('acct_1', task(n))));
    expect(results).toEqual(['a', 'b', 'c']);
    expect(log).toEqual(['start a', 'end a', 'start b', 'end b', 'start c', 'end c']);
    expect(most).toBe(1);
  });

  it('runs tasks of different keys side by side', async () => {
    const q = new PerKeyQueue();
    let running = 0;
    let most = 0;
    const task = async () => {
      running++;
      most = Math.max(most, running);
      await tick();
      running--;
    };
    await Promise.all([q.run('acct_1', task), q.run('acct_2', task), q.run('acct_3', task)]);
    expect(most).toBe(3);
  });

  it('a failing task fails alone: the next task of its key still runs, and the queue empties', async () => {
    const q = new PerKeyQueue();
    const failed = q.run('acct_1', async () => {
      throw new Error('conflict');
    });
    const next = q.run('acct_1', async () => 'ran');
    await expect(failed).rejects.toThrow('conflict');
    await expect(next).resolves.toBe('ran');
    await tick();
    expect(q.busyKeys).toBe(0);
  });
});

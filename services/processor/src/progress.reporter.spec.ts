import { ProgressReporter } from './progress.reporter';

const tick = (ms: number) => new Promise((r) => setTimeout(r, ms));

describe('ProgressReporter', () => {
  it('writes the first value at once, then the latest one per interval, never two writes at once', async () => {
    const written: number[] = [];
    let concurrent = 0;
    let maxConcurrent = 0;
    const reporter = new ProgressReporter(
      async (f) => {
        maxConcurrent = Math.max(maxConcurrent, ++concurrent);
        await tick(5);
        written.push(f);
        concurrent--;
      },
      60,
      () => undefined,
    );
    reporter.update(0.1);
    await tick(20);
    expect(written).toEqual([0.1]);
    for (let i = 2; i <= 10; i++) reporter.update(i / 10); // nine tiles in quick succession
    await tick(80); // one interval later: only the latest of the other nine
    expect(written).toEqual([0.1, 1]);
    await reporter.close();
    expect(maxConcurrent).toBe(1);
  });

  it('close() waits for the write in flight and drops what was not written', async () => {
    const written: number[] = [];
    const reporter = new ProgressReporter(
      async (f) => {
        await tick(20);
        written.push(f);
      },
      1_000,
      () => undefined,
    );
    reporter.update(0.5);
    await tick(5);
    reporter.update(0.75);
    await reporter.close();
    expect(written).toEqual([0.5]);
    reporter.update(0.9);
    await tick(30);
    expect(written).toEqual([0.5]);
  });

  it('a failed write is handed to onError and the next value is still written', async () => {
    const errors: unknown[] = [];
    const written: number[] = [];
    let fail = true;
    const reporter = new ProgressReporter(
      async (f) => {
        if (fail) {
          fail = false;
          throw new Error('connection reset');
        }
        written.push(f);
      },
      10,
      (err) => errors.push((err as Error).message),
    );
    reporter.update(0.2);
    await tick(5);
    reporter.update(0.4);
    await tick(40);
    await reporter.close();
    expect({ errors, written }).toEqual({ errors: ['connection reset'], written: [0.4] });
  });
});

import { ProgressReporter } from './progress.reporter';

/** Fake timers (and Date.now with them): the schedule is exact, whatever the machine's load. */
beforeEach(() => jest.useFakeTimers());
afterEach(() => jest.useRealTimers());

const after = (ms: number) => jest.advanceTimersByTimeAsync(ms);
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

describe('ProgressReporter', () => {
  it('writes the first value at once, then the latest one per interval, never two writes at once', async () => {
    const written: Array<[number, number]> = [];
    let concurrent = 0;
    let maxConcurrent = 0;
    const reporter = new ProgressReporter(
      async (f) => {
        maxConcurrent = Math.max(maxConcurrent, ++concurrent);
        await sleep(5);
        written.push([f, Date.now()]);
        concurrent--;
      },
      60,
      () => undefined,
      () => Date.now(),
    );
    const t0 = Date.now();
    reporter.update(0.1);
    await after(10);
    expect(written).toEqual([[0.1, t0 + 5]]);
    for (let i = 2; i <= 10; i++) reporter.update(i / 10); // nine tiles in quick succession
    await after(100);
    // the second write starts one interval after the first began: only the latest of the nine
    expect(written).toEqual([
      [0.1, t0 + 5],
      [1, t0 + 65],
    ]);
    await reporter.close();
    expect(maxConcurrent).toBe(1);
  });

  it('close() waits for the write in flight and drops what was not written', async () => {
    const written: number[] = [];
    const reporter = new ProgressReporter(
      async (f) => {
        await sleep(20);
        written.push(f);
      },
      1_000,
      () => undefined,
      () => Date.now(),
    );
    reporter.update(0.5);
    await after(5);
    reporter.update(0.75);
    const closed = reporter.close();
    await after(20);
    await closed;
    expect(written).toEqual([0.5]);
    reporter.update(0.9);
    await after(2_000);
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
      () => Date.now(),
    );
    reporter.update(0.2);
    await after(5);
    reporter.update(0.4);
    await after(40);
    await reporter.close();
    expect({ errors, written }).toEqual({ errors: ['connection reset'], written: [0.4] });
  });
});

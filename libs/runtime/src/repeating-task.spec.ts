import type { Logger } from '@upscaler/config';
import { RepeatingTask } from './repeating-task';

/** A logger that keeps what was logged as error. */
function errorLog(): { logger: Logger; errors: string[] } {
  const errors: string[] = [];
  const logger = { error: (_: unknown, msg: string) => errors.push(msg) } as unknown as Logger;
  return { logger, errors };
}

describe('RepeatingTask', () => {
  beforeEach(() => jest.useFakeTimers());
  afterEach(() => jest.useRealTimers());

  /** Lets the pass's promise and the task's reaction to it run. */
  const settle = async () => {
    for (let i = 0; i < 5; i++) await Promise.resolve();
  };

  it('runs the first pass after the first delay, then each one the interval after the previous ended', async () => {
    const starts: number[] = [];
    const { logger } = errorLog();
    const task = new RepeatingTask(
      'sweep',
      async () => void starts.push(Date.now()),
      () => 1_000,
      logger,
    );
    const t0 = Date.now();
    task.start(300);
    await jest.advanceTimersByTimeAsync(299);
    expect(starts).toEqual([]);
    await jest.advanceTimersByTimeAsync(1);
    await jest.advanceTimersByTimeAsync(2_000);
    expect(starts.map((t) => t - t0)).toEqual([300, 1_300, 2_300]);
    task.stop();
  });

  it('never overlaps a slow pass: the next starts the interval after it ended', async () => {
    const starts: number[] = [];
    const { logger } = errorLog();
    const task = new RepeatingTask(
      'sweep',
      async () => {
        starts.push(Date.now());
        await new Promise((r) => setTimeout(r, 5_000)); // a pass that takes 5 s
      },
      () => 1_000,
      logger,
    );
    const t0 = Date.now();
    task.start();
    await jest.advanceTimersByTimeAsync(13_000);
    expect(starts.map((t) => t - t0)).toEqual([1_000, 7_000, 13_000]);
    task.stop();
  });

  it('takes the delay a pass returns, and the interval when it returns none', async () => {
    const starts: number[] = [];
    const delays = [50, undefined, 20];
    const { logger } = errorLog();
    const task = new RepeatingTask(
      'sweep',
      async () => {
        starts.push(Date.now());
        return delays.shift();
      },
      () => 1_000,
      logger,
    );
    const t0 = Date.now();
    task.start(0);
    await jest.advanceTimersByTimeAsync(1_100);
    expect(starts.map((t) => t - t0)).toEqual([0, 50, 1_050, 1_070]);
    task.stop();
  });

  it('a failed pass is logged and the schedule goes on at the interval', async () => {
    let runs = 0;
    const { logger, errors } = errorLog();
    const task = new RepeatingTask(
      'lease sweep',
      async () => {
        runs++;
        if (runs === 1) throw new Error('db away');
        return 10;
      },
      () => 1_000,
      logger,
    );
    task.start(0);
    await jest.advanceTimersByTimeAsync(1_015);
    expect([runs, errors]).toEqual([3, ['lease sweep failed']]);
    task.stop();
  });

  it('stop ends the schedule, also when called while a pass runs', async () => {
    let runs = 0;
    const { logger } = errorLog();
    const task: RepeatingTask = new RepeatingTask(
      'sweep',
      async () => {
        runs++;
        task.stop();
        await settle();
        expect(task.stopped).toBe(true);
      },
      () => 100,
      logger,
    );
    task.start();
    await jest.advanceTimersByTimeAsync(1_000);
    expect(runs).toBe(1);
  });
});

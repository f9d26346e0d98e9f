import type { StoredEvent } from '@upscaler/contracts';
import type { LogTail } from '@upscaler/http-api';
import { JobFinalWaiter } from './job-final-waiter';

/** A LogTail stand-in that hands events to the handlers the waiter registered, as the real one does. */
function fakeTail() {
  const handlers: Array<(e: StoredEvent) => void> = [];
  const tail = { on: (_category: string, h: (e: StoredEvent) => void) => handlers.push(h) } as unknown as LogTail;
  const emit = (jobId: string, type: string) => handlers.forEach((h) => h({ streamId: `job-${jobId}`, type } as StoredEvent));
  return { tail, emit };
}

describe('JobFinalWaiter', () => {
  it('releases every waiter of a job at its final event, not at earlier ones, and no other job', async () => {
    const { tail, emit } = fakeTail();
    const waiter = new JobFinalWaiter(tail);
    const released: string[] = [];
    const a1 = waiter.untilFinal('job_a', 10_000).done.then(() => released.push('a1'));
    const a2 = waiter.untilFinal('job_a', 10_000).done.then(() => released.push('a2'));
    void waiter.untilFinal('job_b', 50).done.then(() => released.push('b'));
    emit('job_a', 'JobStarted');
    await new Promise((r) => setTimeout(r, 5));
    expect(released).toEqual([]);
    emit('job_a', 'JobSucceeded');
    await Promise.all([a1, a2]);
    expect(released).toEqual(['a1', 'a2']);
    expect(waiter.size).toBe(1); // job_b still waits
  });

  it('answers after the time is up when the job does not end', async () => {
    const waiter = new JobFinalWaiter(fakeTail().tail);
    const t0 = performance.now();
    await waiter.untilFinal('job_c', 60).done;
    expect(performance.now() - t0).toBeGreaterThanOrEqual(55);
    expect(waiter.size).toBe(0);
  });

  it('cancel() answers at once and frees the wait (the view was final already)', async () => {
    const waiter = new JobFinalWaiter(fakeTail().tail);
    const w = waiter.untilFinal('job_f', 60_000);
    expect(waiter.size).toBe(1);
    w.cancel();
    await w.done;
    expect(waiter.size).toBe(0);
  });

  it('releases everyone at shutdown', async () => {
    const waiter = new JobFinalWaiter(fakeTail().tail);
    const p = waiter.untilFinal('job_d', 60_000).done;
    waiter.onModuleDestroy();
    await p;
    expect(waiter.size).toBe(0);
  });

  it.each(['JobFailed', 'JobCancelled'])('%s is final too', async (type) => {
    const { tail, emit } = fakeTail();
    const waiter = new JobFinalWaiter(tail);
    const p = waiter.untilFinal('job_e', 60_000).done;
    emit('job_e', type);
    await p;
    expect(waiter.size).toBe(0);
  });
});

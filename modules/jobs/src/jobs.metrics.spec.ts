import type { StoredEvent } from '@upscaler/contracts';
import type { ReadModelRepository } from '@upscaler/projections';
import { Metrics } from '@upscaler/runtime';
import { JobMetrics, jobMetrics } from './jobs.metrics';

const event = (type: string): StoredEvent => ({ type, data: {} }) as unknown as StoredEvent;

describe('jobs metrics', () => {
  const counts = new Map([
    ['queued', 2],
    ['pending', 1],
    ['processing', 3],
    ['succeeded', 7],
  ]);
  const readModels = { countByStatus: (category: string) => Promise.resolve(category === 'job' ? counts : new Map()) };

  it('counts finished jobs by status and reads jobs by status and the queue depth at scrape time', async () => {
    const metrics = new Metrics('processor');
    const count = jobMetrics(metrics, readModels as unknown as ReadModelRepository);
    for (const type of ['JobSucceeded', 'JobSucceeded', 'JobFailed', 'JobCancelled', 'JobQueued', 'JobStarted']) count(event(type));
    const value = async (name: string) =>
      (await metrics.registry.getSingleMetric(name)!.get()).values.map((v) => [v.labels.status ?? '', v.value]);
    expect(await value('upscaler_jobs_finished_total')).toEqual([
      ['succeeded', 2],
      ['failed', 1],
      ['cancelled', 1],
    ]);
    expect(await value('upscaler_queue_depth')).toEqual([['', 3]]);
    expect(Object.fromEntries(await value('upscaler_jobs'))).toMatchObject({
      queued: 2,
      pending: 1,
      processing: 3,
      succeeded: 7,
      failed: 0,
    });
    // the workers get the same series the meter counts on
    expect(metrics.section(JobMetrics).finished).toBe(metrics.registry.getSingleMetric('upscaler_jobs_finished_total'));
  });
});

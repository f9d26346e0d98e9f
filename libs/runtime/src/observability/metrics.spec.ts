import { register } from 'prom-client';
import { Metrics } from './metrics';

/** Every sample line of `name` (exactly that name, any labels) in a scrape. */
function samples(text: string, name: string): string[] {
  return text.split('\n').filter((l) => l.startsWith(`${name}{`) || l.startsWith(`${name} `));
}

describe('Metrics (series that stock tools understand)', () => {
  it('exports the default process and Node.js series under their standard names, with the service label', async () => {
    const text = await new Metrics('billing').registry.metrics();
    for (const name of [
      'process_cpu_seconds_total',
      'process_resident_memory_bytes',
      'process_start_time_seconds',
      'nodejs_eventloop_lag_seconds',
      'nodejs_eventloop_lag_p99_seconds',
      'nodejs_heap_size_used_bytes',
      'nodejs_version_info',
    ]) {
      expect(samples(text, name)).not.toEqual([]);
      for (const line of samples(text, name)) expect(line).toContain('service="billing"');
    }
    expect(text).not.toMatch(/^upscaler_process_/m);
  });

  it('keeps the upscaler_ names of its own series', async () => {
    const m = new Metrics('api');
    m.httpRequests.inc({ method: 'GET', route: '/api/v1/jobs/:id', status: '200' });
    const text = await m.registry.metrics();
    expect(samples(text, 'upscaler_http_requests_total')).toEqual([
      'upscaler_http_requests_total{method="GET",route="/api/v1/jobs/:id",status="200",service="api"} 1',
    ]);
    const own = m.registry
      .getMetricsAsArray()
      .map((x) => (x as unknown as { name: string }).name)
      .filter((n) => !/^(process|nodejs)_/.test(n));
    expect(own).toEqual(['upscaler_http_requests_total', 'upscaler_http_request_duration_seconds', 'upscaler_events_appended_total']);
  });

  it("makes a capability's series once per registry (section), so its meter and its workers share them", async () => {
    class Things {
      readonly done;
      constructor(m: Metrics) {
        this.done = m.counter('upscaler_things_done_total', 'Things done.', ['kind']);
      }
    }
    const m = new Metrics('api');
    m.section(Things).done.inc({ kind: 'a' });
    m.section(Things).done.inc({ kind: 'a' }, 2);
    expect(m.section(Things)).toBe(m.section(Things));
    expect(new Metrics('webhooks').section(Things)).not.toBe(m.section(Things));
    expect(samples(await m.registry.metrics(), 'upscaler_things_done_total')).toEqual([
      'upscaler_things_done_total{kind="a",service="api"} 3',
    ]);
  });

  it('collects the process series once per process however many Metrics it builds, each scrape under its own service label', async () => {
    const a = new Metrics('api');
    const b = new Metrics('standalone');
    // One collector per series, shared: one event-loop monitor, one GC observer, not one per Metrics.
    expect(b.registry.getSingleMetric('nodejs_eventloop_lag_seconds')).toBe(a.registry.getSingleMetric('nodejs_eventloop_lag_seconds'));
    expect(b.registry.getSingleMetric('process_cpu_seconds_total')).toBe(a.registry.getSingleMetric('process_cpu_seconds_total'));
    const [ta, tb] = await Promise.all([a.registry.metrics(), b.registry.metrics()]);
    // Each scrape has each series once (one HELP, one sample), labelled with its own service only.
    expect(ta.match(/^# TYPE process_cpu_seconds_total /gm)).toHaveLength(1);
    expect(samples(ta, 'process_cpu_seconds_total')).toEqual([
      expect.stringMatching(/^process_cpu_seconds_total\{service="api"\} [0-9.e-]+$/),
    ]);
    expect(samples(tb, 'process_cpu_seconds_total')).toEqual([
      expect.stringMatching(/^process_cpu_seconds_total\{service="standalone"\} [0-9.e-]+$/),
    ]);
    // prom-client's global registry stays empty: nothing is exported twice by a library scraping it.
    expect(register.getMetricsAsArray()).toEqual([]);
  });
});

import { collectDefaultMetrics, Counter, Gauge, Histogram, Registry, type Metric } from 'prom-client';

let processSeries: Registry | undefined;

/**
 * prom-client's default process and Node.js series (`process_cpu_seconds_total`,
 * `nodejs_eventloop_lag_seconds`, …) under their standard names, so that stock dashboards and alerts
 * find them. Collected once per process however many Metrics it builds: they describe the process,
 * and a second collection would start a second event-loop monitor and GC observer.
 */
function processRegistry(): Registry {
  if (!processSeries) {
    processSeries = new Registry();
    collectDefaultMetrics({ register: processSeries });
  }
  return processSeries;
}

/**
 * A service's Prometheus registry (docs/operations.md lists every series with dashboard queries): the process and
 * Node.js series, HTTP requests, events appended, and each capability's own series (its `*.metrics.ts`, made once per
 * registry by `section`). Counters count what this process did; gauges that describe the whole system (jobs by
 * status, queue depth, consumer lag) are read from Postgres at scrape time.
 */
export class Metrics {
  readonly registry = new Registry();

  readonly httpRequests = new Counter({
    name: 'upscaler_http_requests_total',
    help: 'HTTP requests by method, route template and status code.',
    labelNames: ['method', 'route', 'status'] as const,
    registers: [this.registry],
  });

  readonly httpDuration = new Histogram({
    name: 'upscaler_http_request_duration_seconds',
    help: 'HTTP request latency by method, route template and status code.',
    labelNames: ['method', 'route', 'status'] as const,
    buckets: [0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10],
    registers: [this.registry],
  });

  readonly eventsAppended = new Counter({
    name: 'upscaler_events_appended_total',
    help: 'Events this process appended to the log, by type.',
    labelNames: ['type'] as const,
    registers: [this.registry],
  });

  constructor(service: string) {
    // The `service` label tells the services apart on every series, the process ones included: a
    // registry applies its default labels when it renders, so the shared process series get ours.
    this.registry.setDefaultLabels({ service });
    // (getMetricsAsArray is typed as plain objects; they are the collectors themselves)
    for (const m of processRegistry().getMetricsAsArray()) this.registry.registerMetric(m as unknown as Metric);
  }

  private readonly sections = new Map<new (metrics: Metrics) => unknown, unknown>();

  /**
   * A capability's series (a class that registers them in its constructor), made once per registry: the event meter
   * that counts appends and the workers that observe share one instance, and prom-client refuses a name twice.
   */
  section<T>(make: new (metrics: Metrics) => T): T {
    if (!this.sections.has(make)) this.sections.set(make, new make(this));
    return this.sections.get(make) as T;
  }

  counter<L extends string>(name: string, help: string, labelNames: readonly L[] = []): Counter<L> {
    return new Counter<L>({ name, help, labelNames, registers: [this.registry] });
  }

  histogram<L extends string>(name: string, help: string, buckets: number[], labelNames: readonly L[] = []): Histogram<L> {
    return new Histogram<L>({ name, help, buckets, labelNames, registers: [this.registry] });
  }

  /** A gauge set by this process (`collect` absent), or computed at scrape time. */
  gauge<L extends string>(name: string, help: string, labelNames: readonly L[], collect?: (g: Gauge<L>) => Promise<void>): Gauge<L> {
    return new Gauge<L>({
      name,
      help,
      labelNames,
      registers: [this.registry],
      ...(collect
        ? {
            async collect() {
              await collect(this as Gauge<L>);
            },
          }
        : {}),
    });
  }
}

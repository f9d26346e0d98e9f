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
 * Every Prometheus series of a service (docs/operations.md lists them with dashboard queries).
 * Counters count what this process did; gauges that describe the whole system (jobs by status,
 * queue depth, consumer lag) are read from Postgres at scrape time.
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

  readonly engineSeconds = new Histogram({
    name: 'upscaler_engine_duration_seconds',
    help: 'Engine time per job (decode, network over all tiles, encode) by network and scale.',
    labelNames: ['network', 'scale'] as const,
    buckets: [0.05, 0.1, 0.25, 0.5, 1, 2, 5, 10, 20, 40, 80, 160],
    registers: [this.registry],
  });

  readonly jobsFinished = new Counter({
    name: 'upscaler_jobs_finished_total',
    help: 'Jobs this process moved to a final state, by status.',
    labelNames: ['status'] as const,
    registers: [this.registry],
  });

  readonly credits = new Counter({
    name: 'upscaler_credits_total',
    help: 'Credits this process reserved, charged or refunded (by kind; refunds also by reason).',
    labelNames: ['kind', 'reason'] as const,
    registers: [this.registry],
  });

  readonly webhookDeliveries = new Counter({
    name: 'upscaler_webhook_delivery_attempts_total',
    help: 'Webhook delivery attempts by outcome (succeeded, retrying, abandoned, endpoint_gone).',
    labelNames: ['outcome'] as const,
    registers: [this.registry],
  });

  readonly webhookLag = new Histogram({
    name: 'upscaler_webhook_delivery_lag_seconds',
    help: 'Time from a webhook delivery falling due (scheduled, or its retry time) to its attempt starting.',
    buckets: [0.25, 0.5, 1, 2, 5, 10, 30, 60, 300, 1800],
    registers: [this.registry],
  });

  readonly webhookInFlight = new Gauge({
    name: 'upscaler_webhook_attempts_in_flight',
    help: 'Webhook attempts this process has under way.',
    registers: [this.registry],
  });

  readonly webhookSharesFull = new Gauge({
    name: 'upscaler_webhook_shares_full',
    help: 'Endpoints (share="endpoint") and accounts (share="account") whose share of this process\'s webhook attempts is all under way while more of their deliveries are due.',
    labelNames: ['share'] as const,
    registers: [this.registry],
  });

  readonly attemptsLost = new Counter({
    name: 'upscaler_job_attempts_lost_total',
    help: 'Processing attempts this process found lost, by reason: lease_expired (the processor died or stalled), storage (storage kept failing during the attempt).',
    labelNames: ['reason'] as const,
    registers: [this.registry],
  });

  readonly jobFilesDeleted = new Counter({
    name: 'upscaler_job_files_deleted_total',
    help: "Jobs whose source and result this process deleted from storage, by reason: retention (UPSCALE_FILE_RETENTION ran out), operator (an operator deleted an account's files).",
    labelNames: ['reason'] as const,
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

  /** A gauge whose value is computed at scrape time. */
  gauge<L extends string>(name: string, help: string, labelNames: readonly L[], collect: (g: Gauge<L>) => Promise<void>): Gauge<L> {
    return new Gauge<L>({
      name,
      help,
      labelNames,
      registers: [this.registry],
      async collect() {
        await collect(this as Gauge<L>);
      },
    });
  }
}

import { mkdtempSync, chmodSync, readFileSync, existsSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { startEmbeddedPostgres, type EmbeddedPostgres } from '@upscaler/postgres';
import {
  e2eMode,
  createAccountWithKey,
  createTestCa,
  freeLoopbackPort,
  gradientImage,
  startHttpsServer,
  startTarget,
  type StartedService,
  type TestCa,
  type TestServer,
} from '@upscaler/testing';

/**
 * Proven on a running service: /metrics after real jobs, one trace per job across api,
 * billing, processor and webhooks, JSON logs with request/job/trace ids, readiness following Postgres.
 */
function corruptPng(png: Buffer): Buffer {
  const out = Buffer.from(png);
  const idat = out.indexOf('IDAT');
  for (let i = idat + 8; i < Math.min(out.length - 16, idat + 60); i++) out[i] = (out[i] * 31 + 7) & 0xff;
  return out;
}

function metricValues(text: string, name: string, labels: Record<string, string>): number[] {
  const out: number[] = [];
  for (const line of text.split('\n')) {
    if (!line.startsWith(`${name}{`)) continue;
    const body = line.slice(name.length + 1, line.indexOf('}'));
    const pairs = Object.fromEntries(body.split(',').map((kv) => kv.split('=').map((s) => s.replace(/^"|"$/g, ''))));
    if (Object.entries(labels).every(([k, v]) => pairs[k] === v)) out.push(Number(line.slice(line.lastIndexOf(' ') + 1)));
  }
  return out;
}

/**
 * Counters count what each process did, so over several processes (distributed mode) they add up;
 * system gauges are the same on every process, so their maximum is the value.
 */
function counter(texts: string[], name: string, labels: Record<string, string>): number | undefined {
  const v = texts.flatMap((t) => metricValues(t, name, labels));
  return v.length ? v.reduce((a, b) => a + b, 0) : undefined;
}
function gauge(texts: string[], name: string, labels: Record<string, string>): number | undefined {
  const v = texts.flatMap((t) => metricValues(t, name, labels));
  return v.length ? Math.max(...v) : undefined;
}

async function scrapeAll(svc: StartedService): Promise<string[]> {
  return Promise.all((svc.serviceUrls ?? [svc.baseUrl]).map(async (u) => (await fetch(`${u}/metrics`)).text()));
}

async function eventually<T>(probe: () => Promise<T | undefined>, timeoutMs = 60_000): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const v = await probe();
    if (v !== undefined) return v;
    if (Date.now() > deadline) throw new Error('condition not reached in time');
    await new Promise((r) => setTimeout(r, 200));
  }
}

describe('observability of a running service', () => {
  let svc: StartedService;
  let pg: EmbeddedPostgres;
  let pgDir: string;
  let pgPort: number;
  let ca: TestCa;
  let receiver: TestServer;
  const received: string[] = [];
  const tracesFile = join(mkdtempSync(join(tmpdir(), 'upscaler-traces-')), 'spans.jsonl');

  beforeAll(async () => {
    pgDir = mkdtempSync(join(tmpdir(), 'upscaler-obs-pg-'));
    chmodSync(pgDir, 0o755);
    pgPort = await freeLoopbackPort();
    pg = await startEmbeddedPostgres({ dataDir: pgDir, port: pgPort, initdbFlags: ['--no-sync'], postgresFlags: ['-c', 'fsync=off'] });
    ca = await createTestCa();
    receiver = await startHttpsServer((req, res) => {
      let body = '';
      req.on('data', (c) => (body += c));
      req.on('end', () => {
        received.push(body);
        res.statusCode = 200;
        res.end('ok');
      });
    }, ca);
    svc = await startTarget({
      env: {
        DATABASE_URL: pg.url,
        UPSCALE_TRACES_FILE: tracesFile,
        UPSCALE_ALLOW_PRIVATE_NETWORKS: 'true',
        NODE_EXTRA_CA_CERTS: ca.caPath,
        UPSCALE_OPERATOR_TOKEN: 'op-token-observability',
        LOG_LEVEL: 'info',
      },
    });
  });

  afterAll(async () => {
    await svc?.stop();
    await receiver?.close();
    await pg?.stop();
    if (pgDir) rmSync(pgDir, { recursive: true, force: true });
    ca?.cleanup();
  });

  it('scrapes the series the service documents, with the values of the jobs that ran, traces each job end to end, and logs ids', async () => {
    const { client } = await createAccountWithKey(svc.apiUrl, svc.operatorToken, { credits: 30 });
    const ep = await client.post('/webhook_endpoints', { url: `${receiver.url}/hook` });
    expect(ep.status).toBe(201);

    const ok = await client.upload(await gradientImage(24, 24, 'png'), { target: '2k' });
    expect(ok.status).toBe(202);
    const bad = await client.upload(corruptPng(await gradientImage(24, 24, 'png')), { target: '2k' });
    expect(bad.status).toBe(202);
    expect((await client.waitForFinal(ok.body.id)).status).toBe('succeeded');
    const failed = await client.waitForFinal(bad.body.id);
    expect(failed.status).toBe('failed');
    await eventually(async () => (received.length >= 2 ? true : undefined));

    const texts = await eventually(async () => {
      const t = await scrapeAll(svc);
      return counter(t, 'upscaler_credits_total', { kind: 'refunded', reason: 'failed' }) === 3 &&
        counter(t, 'upscaler_webhook_delivery_attempts_total', { outcome: 'succeeded' }) === 2
        ? t
        : undefined;
    });
    const all = texts.join('\n');
    expect(counter(texts, 'upscaler_credits_total', { kind: 'reserved', reason: '' })).toBe(6);
    expect(counter(texts, 'upscaler_credits_total', { kind: 'charged', reason: '' })).toBe(3);
    expect(gauge(texts, 'upscaler_jobs', { status: 'succeeded' })).toBe(1);
    expect(gauge(texts, 'upscaler_jobs', { status: 'failed' })).toBe(1);
    expect(counter(texts, 'upscaler_jobs_finished_total', { status: 'succeeded' })).toBe(1);
    expect(gauge(texts, 'upscaler_queue_depth', {})).toBe(0);
    expect(counter(texts, 'upscaler_http_requests_total', { method: 'POST', route: '/api/v1/upscale', status: '202' })).toBe(2);
    expect(all).toMatch(/upscaler_http_request_duration_seconds_bucket\{[^}]*route="\/api\/v1\/upscale"/);
    expect(all).toMatch(/upscaler_engine_duration_seconds_count\{[^}]*network="[a-z0-9-]+"[^}]*scale="2"[^}]*\} 1/);
    expect(all).toMatch(/upscaler_consumer_lag_events\{[^}]*consumer="/);
    // The process and Node.js series under their standard names, once per process, labelled with the
    // service that process runs (the standalone's four services share one process, hence one set).
    const services = e2eMode() === 'standalone' ? ['standalone'] : ['api', 'billing', 'webhooks', 'processor', 'processor'];
    for (const name of [
      'process_cpu_seconds_total',
      'process_resident_memory_bytes',
      'nodejs_eventloop_lag_p99_seconds',
      'nodejs_heap_size_used_bytes',
    ]) {
      const perProcess = texts.map((t) => t.split('\n').filter((l) => l.startsWith(`${name}{`)));
      expect(perProcess.map((lines) => lines.length)).toEqual(services.map(() => 1));
      expect(perProcess.map(([line]) => /service="([a-z]+)"/.exec(line!)?.[1]).sort()).toEqual([...services].sort());
    }
    expect(all).not.toMatch(/^upscaler_process_/m);

    // One trace follows the successful job from the HTTP request to the webhook delivery.
    const spans = await eventually(async () => {
      if (!existsSync(tracesFile)) return undefined;
      const all = readFileSync(tracesFile, 'utf8')
        .trim()
        .split('\n')
        .map((l) => JSON.parse(l));
      const submit = all.find((s) => s.name === 'api.submit' && all.some((o) => o.traceId === s.traceId && o.name === 'webhooks.deliver'));
      return submit ? all.filter((s) => s.traceId === submit.traceId) : undefined;
    });
    const names = new Set(spans.map((s) => s.name));
    // (the settlement is the final event itself, applied in the processor's append: no span of its own)
    for (const n of ['api.submit', 'billing.reserve', 'processor.job', 'engine.upscale', 'webhooks.schedule', 'webhooks.deliver']) {
      expect(names).toContain(n);
    }
    const server = spans.find((s) => s.kind === 1 /* SERVER */);
    expect(server?.attributes).toMatchObject({
      'http.request.method': 'POST',
      'url.path': '/api/v1/upscale',
      'http.response.status_code': 202,
    });
    expect(spans.find((s) => s.name === 'api.submit').parentSpanId).toBe(server.spanId);
    expect(spans.find((s) => s.name === 'processor.job').attributes['upscaler.job_id']).toBe(ok.body.id);

    // Postgres spans from the pg instrumentation, joined to the request: the submit's queries in the api's
    // process (the event append among them) descend from the HTTP server span; so do billing's for the reserve.
    const byId = new Map(spans.map((s) => [s.spanId, s]));
    const descendsFrom = (s: any, ancestor: any): boolean => {
      for (let p = byId.get(s.parentSpanId); p; p = byId.get(p.parentSpanId)) if (p.spanId === ancestor.spanId) return true;
      return false;
    };
    const requestQueries = spans.filter((s) => s.attributes['db.system.name'] === 'postgresql' && descendsFrom(s, server));
    const apiQueries = requestQueries.filter((s) => s.service === server.service);
    expect(apiQueries.length).toBeGreaterThan(0);
    expect(requestQueries.every((s) => s.kind === 2 /* CLIENT */)).toBe(true);
    expect(apiQueries.some((s) => /^\s*INSERT INTO "?events"?/i.test(s.attributes['db.query.text']))).toBe(true);
    const reserve = spans.find((s) => s.name === 'billing.reserve');
    expect(requestQueries.some((s) => descendsFrom(s, reserve))).toBe(true);
    // the processor's queries for the job are in the trace too, under processor.job
    const job = spans.find((s) => s.name === 'processor.job');
    expect(spans.some((s) => s.attributes['db.system.name'] === 'postgresql' && descendsFrom(s, job))).toBe(true);

    if (e2eMode() === 'distributed') {
      // Kafka spans from the kafkajs instrumentation: the api's reserve request is a PRODUCER span under the
      // request, and billing's CONSUMER span for it is its child: the trace context crossed in the message headers.
      const send = spans.find((s) => s.name === 'send upscale.billing.reserve.v1' && s.kind === 3 /* PRODUCER */);
      expect(send).toBeDefined();
      expect(descendsFrom(send, server)).toBe(true);
      const received = spans.find((s) => s.name === 'process upscale.billing.reserve.v1' && s.parentSpanId === send.spanId);
      expect(received).toMatchObject({ kind: 4 /* CONSUMER */, service: 'upscaler-billing' });
      expect(spans.find((s) => s.name === 'billing.reserve').service).toBe('upscaler-billing');
      // The relay publishes each event in the trace of the request that appended it (a PRODUCER span under
      // api.submit for JobQueued), and the consumers' per-message spans link to it through the headers.
      const submitted = spans.find((s) => s.name === 'send upscale.job-events.v1' && s.attributes['upscaler.event_type'] === 'JobQueued');
      expect(submitted).toMatchObject({ kind: 3 });
      expect(descendsFrom(submitted, server)).toBe(true);
      const everySpan = readFileSync(tracesFile, 'utf8')
        .trim()
        .split('\n')
        .map((l) => JSON.parse(l));
      const linked = everySpan.filter(
        (s) => s.name === 'process upscale.job-events.v1' && s.links.some((l: any) => l.spanId === submitted.spanId),
      );
      expect(linked.length).toBeGreaterThan(0);
    }

    // JSON logs: the request line carries the request id and trace id; the processor line the job id.
    const requestId = ok.headers.get('x-request-id');
    const lines = svc
      .logs()
      .split('\n')
      .filter((l) => l.startsWith('{'))
      .map((l) => JSON.parse(l));
    const reqLine = lines.find((l) => l.req?.id === requestId);
    expect(reqLine).toBeDefined();
    expect(reqLine.traceId).toMatch(/^[0-9a-f]{32}$/);
    const jobLine = lines.find((l) => l.jobId === ok.body.id && l.msg === 'job handled');
    expect(jobLine).toMatchObject({ outcome: 'succeeded' });
    expect(['standalone', 'processor']).toContain(jobLine.service);
  });

  it('reports not ready while Postgres is down and ready again when it returns', async () => {
    expect((await fetch(`${svc.baseUrl}/health/ready`)).status).toBe(200);
    await pg.stop();
    const down = await eventually(async () => {
      const r = await fetch(`${svc.baseUrl}/health/ready`);
      return r.status === 503 ? r : undefined;
    });
    const body = (await down.json()) as { details: Record<string, { status: string }> };
    expect(body.details.postgres.status).toBe('down');
    expect(body.details.storage.status).toBe('up');
    // the processor's claim loop counts too (standalone: the processor is this process; distributed: the api's
    // readiness is the api's own): its LISTEN connection (wake-ups, cancels) is gone with Postgres
    if (e2eMode() === 'standalone') expect(body.details['work-queue'].status).toBe('down');
    expect((await fetch(`${svc.baseUrl}/health/live`)).status).toBe(200);
    pg = await startEmbeddedPostgres({ dataDir: pgDir, port: pgPort, postgresFlags: ['-c', 'fsync=off'] });
    // …and everything recovers by itself: Postgres, the claim loop (it retried with backoff) and its LISTEN
    const ready = await eventually(async () => {
      const r = await fetch(`${svc.baseUrl}/health/ready`);
      return r.status === 200 ? ((await r.json()) as { details: Record<string, { status: string }> }) : undefined;
    });
    expect([ready.details.postgres.status, ready.details['work-queue']?.status]).toEqual([
      'up',
      e2eMode() === 'standalone' ? 'up' : undefined,
    ]);
  });
});

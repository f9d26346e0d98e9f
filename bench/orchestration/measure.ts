import { Client } from 'pg';
import type { Target } from './targets';

/**
 * Workloads against a running target, over its public HTTP API only; the engine's own time per job
 * is read from the log (JobSucceeded.data.engine.engineMs), so orchestration = the rest.
 */

export interface Workload {
  name: string;
  count: number;
  size: number;
  target: '2k' | '3k' | '4k';
  /** The request's quality tier (default fast). */
  quality?: 'fast' | 'balanced' | 'best';
}

export interface JobTiming {
  id: string;
  status: string;
  createdMs: number;
  finishedMs: number;
  engineMs: number;
  /** the processor that ran the job's successful attempt (JobStarted.data.workerId) */
  worker: string;
  /**
   * JobQueued committed -> first JobStarted committed (both from the log, one clock): how long the job
   * waited for a claim. With an idle processor this is the claim latency of the work queue (NOTIFY at
   * commit, SKIP LOCKED claim, the StartJob append).
   */
  claimMs: number;
}

export interface BurstResult {
  jobs: JobTiming[];
  /** first submit sent -> last job finished (server's finished_at; same machine, same clock) */
  wallMs: number;
  jobsPerSecond: number;
  /**
   * Jobs per second while every processor still had work: from the first submit until the first processor
   * finished its last job of the burst. Processors claim from one shared work queue, so they run dry
   * together (up to one job); with one processor this equals jobsPerSecond.
   */
  saturatedJobsPerSecond: number;
  /** jobs each processor handled (its "job handled" log lines) */
  perProcessor: number[];
}

interface Answer {
  status: number;
  body: any;
}

/** A tiny client: JSON and multipart over fetch, bearer key. */
export class BenchClient {
  constructor(
    readonly apiUrl: string,
    private readonly token: string,
  ) {}

  async call(method: string, path: string, body?: unknown): Promise<Answer> {
    const headers: Record<string, string> = {
      authorization: `Bearer ${this.token}`,
    };
    let payload: string | FormData | undefined;
    if (body instanceof FormData) payload = body;
    else if (body !== undefined) {
      headers['content-type'] = 'application/json';
      payload = JSON.stringify(body);
    }
    const res = await fetch(`${this.apiUrl}${path}`, {
      method,
      headers,
      body: payload,
    });
    const text = await res.text();
    return { status: res.status, body: text ? JSON.parse(text) : undefined };
  }

  async submit(image: Buffer, target: string, quality = 'fast'): Promise<string> {
    const form = new FormData();
    form.append('image', new Blob([image], { type: 'image/png' }), 'bench.png');
    form.append('target', target);
    form.append('quality', quality);
    const r = await this.call('POST', '/upscale', form);
    if (r.status !== 202) throw new Error(`POST /upscale answered ${r.status}: ${JSON.stringify(r.body)}`);
    return r.body.id as string;
  }
}

export async function newBenchAccount(t: Target): Promise<BenchClient> {
  const op = new BenchClient(t.apiUrl, t.operatorToken);
  const acct = await op.call('POST', '/admin/accounts', {
    name: 'bench',
    credits: 1_000_000,
  });
  if (acct.status !== 201) throw new Error(`create account: ${acct.status}`);
  const key = await op.call('POST', `/admin/accounts/${acct.body.id}/keys`, {
    scopes: ['jobs:read', 'jobs:write'],
  });
  if (key.status !== 201) throw new Error(`create key: ${key.status}`);
  return new BenchClient(t.apiUrl, key.body.key);
}

const FINAL = new Set(['succeeded', 'failed', 'cancelled']);
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

/** Polls the job list (one request for up to 100 jobs) until every job in `ids` is final. */
async function waitFinal(client: BenchClient, ids: string[], timeoutMs: number, pollMs: number): Promise<void> {
  const want = new Set(ids);
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const done = new Set<string>();
    let cursor: string | undefined;
    for (;;) {
      const r = await client.call('GET', `/jobs?limit=100${cursor ? `&starting_after=${cursor}` : ''}`);
      for (const j of r.body.data as Array<{ id: string; status: string }>) if (want.has(j.id) && FINAL.has(j.status)) done.add(j.id);
      if (!r.body.has_more) break;
      cursor = r.body.next_cursor;
    }
    if (done.size === want.size) return;
    if (Date.now() > deadline) throw new Error(`${want.size - done.size} of ${want.size} jobs not final after ${timeoutMs} ms`);
    await sleep(pollMs);
  }
}

async function timings(t: Target, client: BenchClient, ids: string[]): Promise<JobTiming[]> {
  const db = new Client({ connectionString: t.pgUrl });
  await db.connect();
  let engine: Map<string, number>;
  let worker: Map<string, string>;
  let claim: Map<string, number>;
  try {
    const waited = await db.query<{ job_id: string; ms: number }>(
      `SELECT q.data->>'jobId' AS job_id,
              extract(epoch FROM (SELECT min(s.created_at) FROM events s WHERE s.stream_id = q.stream_id AND s.type = 'JobStarted') - q.created_at) * 1000 AS ms
         FROM events q WHERE q.type = 'JobQueued' AND q.data->>'jobId' = ANY($1)`,
      [ids],
    );
    claim = new Map(waited.rows.map((row) => [row.job_id, Number(row.ms)]));
    const started = await db.query<{ job_id: string; worker: string }>(
      `SELECT data->>'jobId' AS job_id, data->>'workerId' AS worker FROM events WHERE type = 'JobStarted' AND data->>'jobId' = ANY($1) ORDER BY position`,
      [ids],
    );
    worker = new Map(started.rows.map((row) => [row.job_id, row.worker])); // the last attempt wins
    const r = await db.query<{ job_id: string; ms: number }>(
      `SELECT data->>'jobId' AS job_id, (data->'engine'->>'engineMs')::float8 AS ms FROM events WHERE type = 'JobSucceeded' AND data->>'jobId' = ANY($1)`,
      [ids],
    );
    engine = new Map(r.rows.map((row) => [row.job_id, Number(row.ms)]));
  } finally {
    await db.end();
  }
  const out: JobTiming[] = [];
  for (const id of ids) {
    const j = (await client.call('GET', `/jobs/${id}`)).body;
    out.push({
      id,
      status: j.status,
      createdMs: Date.parse(j.created_at),
      finishedMs: Date.parse(j.finished_at),
      engineMs: engine.get(id) ?? Number.NaN,
      worker: worker.get(id) ?? '?',
      claimMs: claim.get(id) ?? Number.NaN,
    });
  }
  return out;
}

function handledCounts(t: Target, ids: string[]): number[] {
  const want = new Set(ids);
  return t.processorLogs().map((log) => {
    let n = 0;
    for (const line of log.split('\n')) {
      if (!line.includes('"job handled"')) continue;
      try {
        const rec = JSON.parse(line) as { jobId?: string; outcome?: string };
        if (rec.jobId && want.has(rec.jobId) && rec.outcome === 'succeeded') n++;
      } catch {
        // not a log record
      }
    }
    return n;
  });
}

/** `count` jobs submitted at once; wall time from the first submit to the last finish. */
export async function burst(t: Target, client: BenchClient, image: Buffer, w: Workload, timeoutMs: number): Promise<BurstResult> {
  const t0 = Date.now();
  const ids = await Promise.all(Array.from({ length: w.count }, () => client.submit(image, w.target, w.quality)));
  await waitFinal(client, ids, timeoutMs, 100);
  const jobs = await timings(t, client, ids);
  const bad = jobs.filter((j) => j.status !== 'succeeded');
  if (bad.length > 0) throw new Error(`${bad.length} jobs did not succeed: ${bad.map((j) => `${j.id} ${j.status}`).join(', ')}`);
  const wallMs = Math.max(...jobs.map((j) => j.finishedMs)) - t0;
  const lastPerWorker = new Map<string, number>();
  for (const j of jobs) lastPerWorker.set(j.worker, Math.max(lastPerWorker.get(j.worker) ?? 0, j.finishedMs));
  const saturatedEnd = Math.min(...lastPerWorker.values());
  const saturatedJobs = jobs.filter((j) => j.finishedMs <= saturatedEnd).length;
  return {
    jobs,
    wallMs,
    jobsPerSecond: (w.count * 1000) / wallMs,
    saturatedJobsPerSecond: (saturatedJobs * 1000) / (saturatedEnd - t0),
    perProcessor: handledCounts(t, ids),
  };
}

/** Jobs one after another (nothing queued behind anything): each job's time beyond the engine's. */
export async function oneByOne(t: Target, client: BenchClient, image: Buffer, w: Workload, timeoutMs: number): Promise<JobTiming[]> {
  const ids: string[] = [];
  for (let i = 0; i < w.count; i++) {
    const id = await client.submit(image, w.target, w.quality);
    const deadline = Date.now() + timeoutMs;
    while (!FINAL.has((await client.call('GET', `/jobs/${id}`)).body.status)) {
      if (Date.now() > deadline) throw new Error(`job ${id} not final after ${timeoutMs} ms`);
      await sleep(50);
    }
    ids.push(id);
  }
  return timings(t, client, ids);
}

export const overheadMs = (j: JobTiming): number => j.finishedMs - j.createdMs - j.engineMs;

export function quantile(xs: number[], q: number): number {
  const s = [...xs].sort((a, b) => a - b);
  if (s.length === 0) return Number.NaN;
  const i = Math.min(s.length - 1, Math.max(0, Math.ceil(q * s.length) - 1));
  return s[i];
}

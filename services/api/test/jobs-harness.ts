import { rmSync } from 'node:fs';
import {
  ApiClient,
  e2eMode,
  gradientImage,
  startTarget,
  type ApiRequestInit,
  type ApiResponse,
  type StartedService,
} from '@upscaler/testing';
import sharp, { type Metadata } from 'sharp';
import { openApiDocument, validateAgainstResponse } from '../src/openapi/openapi.document';

/**
 * Shared plumbing of the jobs end-to-end suites (jobs-*.e2e-spec.ts): one service per file, a
 * fresh account per test, and a client that checks every JSON answer against the OpenAPI document
 * (body schema for that operation and status, and the headers it marks required).
 */

export interface JobsService extends StartedService {
  /** stop the service (every process of it) and remove its data dir */
  shutdown(): Promise<void>;
}

/**
 * Whether the suites run against the embedded standalone (the default) or, with
 * the e2e-distributed jest project, against separate api, billing, webhooks and two processors on
 * Kafka, MinIO and Postgres (libs/testing/src/deployment.ts). A few behaviours are only observable
 * in the standalone: one processor that runs one job at a time (so a long job keeps later ones
 * queued), and signed URLs served by the api itself.
 */
export const STANDALONE = e2eMode() === 'standalone';
export { describeStandalone } from '@upscaler/testing';
export const testStandalone = STANDALONE ? test : test.skip;

/** Starts the service; the rate limit is raised (to the most a key may have, as the cluster runs) unless the caller sets it (polling would hit 60/min). */
export async function startJobsService(env: Record<string, string | undefined> = {}): Promise<JobsService> {
  const svc = await startTarget({
    env: { UPSCALE_RATE_LIMIT_PER_MINUTE: '10000', UPSCALE_ALLOW_PRIVATE_NETWORKS: undefined, ...env },
    readyTimeoutMs: 180_000,
  });
  return {
    ...svc,
    shutdown: async () => {
      await svc.stop();
      rmSync(svc.dataDir, { recursive: true, force: true });
    },
  };
}

/** `/jobs/job_…/result?x=1` -> `/api/v1/jobs/{id}/result`, the OpenAPI path template. */
export function templateOf(path: string): string {
  const parts = path.split('?')[0].split('/');
  const collections = new Set(['jobs', 'accounts', 'keys', 'api_keys', 'webhook_endpoints']);
  const out = parts.map((seg, i) => (i > 0 && collections.has(parts[i - 1]) && seg !== '' ? '{id}' : seg));
  return `/api/v1${out.join('/')}`;
}

type Json = Record<string, any>;

function resolveHeader(doc: Json, h: Json): Json {
  if (typeof h.$ref === 'string') return doc.components.headers[h.$ref.split('/').pop()!];
  return h;
}

/** Problems of one answer against the document: body schema and required headers. */
export function openApiProblems(
  method: string,
  template: string,
  res: Pick<ApiResponse, 'status' | 'headers' | 'text' | 'body'>,
): string[] {
  const doc = openApiDocument() as Json;
  const op = doc.paths[template]?.[method.toLowerCase()];
  if (!op) return [`no operation ${method} ${template}`];
  const response = op.responses?.[String(res.status)];
  if (!response) return [`${method} ${template} documents no ${res.status} response`];
  const problems: string[] = [];
  const isJson = (res.headers.get('content-type') ?? '').startsWith('application/json');
  if (response.content?.['application/json']) {
    if (!isJson) problems.push(`content-type ${res.headers.get('content-type')} is not JSON`);
    else problems.push(...validateAgainstResponse(method, template, res.status, res.body));
  } else if (isJson && res.text.length > 0) {
    problems.push(`${method} ${template} ${res.status} documents no JSON body but got one`);
  }
  for (const [name, raw] of Object.entries((response.headers ?? {}) as Record<string, Json>)) {
    const h = resolveHeader(doc, raw);
    const value = res.headers.get(name);
    if (h.required && value === null) problems.push(`header ${name} is required but missing`);
    if (value !== null && h.schema?.type === 'integer' && !/^\d+$/.test(value)) problems.push(`header ${name}=${value} is not an integer`);
    if (value !== null && h.schema?.const !== undefined && value !== h.schema.const) {
      problems.push(`header ${name}=${value}, documented ${h.schema.const}`);
    }
  }
  return problems;
}

/** An ApiClient whose every answer must match the OpenAPI document (the test fails otherwise). */
export class CheckedClient extends ApiClient {
  override withToken(token: string): CheckedClient {
    return new CheckedClient(this.apiUrl, token);
  }

  override async request<T = any>(method: string, path: string, init: ApiRequestInit = {}): Promise<ApiResponse<T>> {
    const res = await super.request<T>(method, path, init);
    const problems = openApiProblems(method, templateOf(path), res);
    if (problems.length > 0) {
      throw new Error(
        `${method} ${path} -> ${res.status} does not match the OpenAPI document:\n  ${problems.join('\n  ')}\nbody: ${res.text}`,
      );
    }
    return res;
  }
}

export interface TestAccount {
  accountId: string;
  keyId: string;
  key: string;
  client: CheckedClient;
  operator: CheckedClient;
  /** credits granted so far (for the ledger check) */
  granted: number;
}

/** A fresh account with `credits` and one key (jobs:read + jobs:write unless scopes are given). */
export async function newAccount(
  svc: StartedService,
  opts: {
    credits?: number;
    scopes?: string[];
    rateLimitPerMinute?: number;
  } = {},
): Promise<TestAccount> {
  const operator = new CheckedClient(svc.apiUrl, svc.operatorToken);
  const credits = opts.credits ?? 100;
  const acct = await operator.post('/admin/accounts', {
    name: 'jobs e2e',
    credits,
  });
  if (acct.status !== 201) throw new Error(`create account: ${acct.status} ${acct.text}`);
  const key = await newKey(operator, acct.body.id, opts);
  return {
    accountId: acct.body.id,
    keyId: key.id,
    key: key.key,
    client: new CheckedClient(svc.apiUrl, key.key),
    operator,
    granted: credits,
  };
}

export async function newKey(
  operator: CheckedClient,
  accountId: string,
  opts: { scopes?: string[]; rateLimitPerMinute?: number } = {},
): Promise<{ id: string; key: string }> {
  const res = await operator.post(`/admin/accounts/${accountId}/keys`, {
    name: 'jobs e2e key',
    scopes: opts.scopes ?? ['jobs:read', 'jobs:write'],
    ...(opts.rateLimitPerMinute !== undefined ? { rate_limit_per_minute: opts.rateLimitPerMinute } : {}),
  });
  if (res.status !== 201) throw new Error(`create key: ${res.status} ${res.text}`);
  return { id: res.body.id, key: res.body.key };
}

/** GET /account, checking docs/design.md §2's invariant granted = balance + reserved + charged. */
export async function ledger(acct: TestAccount): Promise<{ balance: number; reserved: number; charged: number }> {
  const res = await acct.client.get('/account');
  expect(res.status).toBe(200);
  const { balance, reserved, charged } = res.body;
  expect({ sum: balance + reserved + charged, balance: balance >= 0 }).toEqual({
    sum: acct.granted,
    balance: true,
  });
  return { balance, reserved, charged };
}

/** A refused request leaves the account as it was: the whole grant in the balance, nothing reserved or charged. */
export async function expectUncharged(acct: TestAccount): Promise<void> {
  expect(await ledger(acct)).toEqual({ balance: acct.granted, reserved: 0, charged: 0 });
}

/** Waits for the job to end, expects it succeeded, and returns it with its downloaded result and that file's metadata. */
export async function succeededResult(
  client: ApiClient,
  jobId: string,
): Promise<{ job: Record<string, any>; file: Awaited<ReturnType<typeof downloadResult>>; meta: Metadata }> {
  const job = await waitForJob(client, jobId, isFinal);
  expect(job.status).toBe('succeeded');
  const file = await downloadResult(client, jobId);
  return { job, file, meta: await sharp(file.bytes).metadata() };
}

/** Spec 7: the status, the code, and a body that is exactly { error: { code, message } }. */
export function expectError(res: ApiResponse, status: number, code: string): void {
  expect({ status: res.status, body: res.body }).toEqual({
    status,
    body: { error: { code, message: expect.any(String) } },
  });
  expect(Object.keys(res.body)).toEqual(['error']);
  expect(Object.keys(res.body.error).sort()).toEqual(['code', 'message']);
  expect(res.body.error.message.length).toBeGreaterThan(0);
}

export function sleep(ms: number): Promise<void> {
  return new Promise((r) => setTimeout(r, ms));
}

/** Polls GET /jobs/{id} until `done` says so (generous deadline: the machine is shared). */
export async function waitForJob(client: ApiClient, jobId: string, done: (job: Json) => boolean, timeoutMs = 120_000): Promise<Json> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const r = await client.get(`/jobs/${jobId}`);
    if (r.status !== 200) throw new Error(`GET /jobs/${jobId}: ${r.status} ${r.text}`);
    if (done(r.body)) return r.body;
    if (Date.now() > deadline) throw new Error(`job ${jobId} still ${r.body.status} after ${timeoutMs} ms`);
    await sleep(100);
  }
}

export const isFinal = (job: Json): boolean => ['succeeded', 'failed', 'cancelled'].includes(job.status);

/** Polls until `check` returns a value (not undefined), for the billing consumer to catch up. */
export async function eventually<T>(check: () => Promise<T | undefined>, what: string, timeoutMs = 60_000): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const v = await check();
    if (v !== undefined) return v;
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await sleep(100);
  }
}

/**
 * GET /account once, right after every job of the account was seen final (or cancelled): nothing may
 * still be reserved, since a final state and its charge or refund are one transaction (settled on
 * final). No polling: a settlement that lagged the final view fails here. Checks the
 * invariant as `ledger` does.
 */
export async function settledLedger(acct: TestAccount): Promise<{ balance: number; reserved: number; charged: number }> {
  const l = await ledger(acct);
  expect({ account: acct.accountId, reserved: l.reserved }).toEqual({ account: acct.accountId, reserved: 0 });
  return l;
}

/**
 * Downloads a signed URL (no API key). A link to the api's own files route (embedded storage) is
 * checked against GET /api/v1/files/{path}; an S3/MinIO presigned link (distributed mode) is not ours
 * to document.
 */
export async function download(url: string): Promise<{ status: number; headers: Headers; bytes: Buffer; body: any }> {
  const res = await fetch(url, { redirect: 'manual' });
  const bytes = Buffer.from(await res.arrayBuffer());
  const text = bytes.toString('utf8');
  let body: unknown;
  if ((res.headers.get('content-type') ?? '').startsWith('application/json')) body = JSON.parse(text);
  if (new URL(url).pathname.startsWith('/api/v1/files/')) {
    const problems = openApiProblems('GET', '/api/v1/files/{path}', { status: res.status, headers: res.headers, text, body });
    if (problems.length > 0)
      throw new Error(`GET ${url} -> ${res.status} does not match the OpenAPI document:\n  ${problems.join('\n  ')}`);
  }
  return { status: res.status, headers: res.headers, bytes, body };
}

/**
 * A long job that keeps the one-job-at-a-time processor busy, so that jobs submitted meanwhile stay
 * queued: 1024x1024 at 4k, best (eight network passes on each of sixteen 256-pixel tiles), tens of seconds
 * even on a quiet machine (512x512 fast, the old blocker, ends within a second there); a cancel stops it
 * between two passes. Submitted by its own account so it never touches a test's ledger.
 */
export async function occupyProcessor(svc: StartedService): Promise<{ jobId: string; owner: CheckedClient; release(): Promise<void> }> {
  const acct = await newAccount(svc, { credits: 9 });
  const res = await acct.client.upload(await gradientImage(1024, 1024), {
    target: '4k',
    quality: 'best',
  });
  if (res.status !== 202) throw new Error(`blocker: ${res.status} ${res.text}`);
  const jobId = res.body.id as string;
  await waitForJob(acct.client, jobId, (j) => j.status === 'processing' || isFinal(j));
  return {
    jobId,
    owner: acct.client,
    release: async () => {
      const c = await acct.client.delete(`/jobs/${jobId}`);
      if (c.status !== 200 && c.status !== 409) throw new Error(`release blocker: ${c.status} ${c.text}`);
      await waitForJob(acct.client, jobId, isFinal);
    },
  };
}

/**
 * The file's jobs service, started before its tests and shut down after, and a gradient PNG to submit: the preamble
 * the jobs specs shared. Read `jobs.svc` / `jobs.image` inside tests and hooks (they are set in beforeAll).
 */
export function useJobsService(opts: { env?: Record<string, string | undefined>; imageSize?: [number, number] } = {}): {
  svc: JobsService;
  image: Buffer;
} {
  const jobs = {} as { svc: JobsService; image: Buffer };
  beforeAll(async () => {
    jobs.svc = await startJobsService(opts.env);
    jobs.image = await gradientImage(...(opts.imageSize ?? [16, 16]));
  });
  afterAll(async () => {
    await jobs.svc?.shutdown();
  });
  return jobs;
}

/**
 * Keeps the one processor busy for the enclosing describe block (standalone), so jobs submitted in it stay queued;
 * `release()` frees it early (releasing twice is harmless: the second cancel answers 409).
 */
export function useOccupiedProcessor(jobs: { svc: JobsService }): {
  release(): Promise<void>;
  /** the blocking job and its account's client (set in beforeAll) */
  readonly jobId: string;
  readonly owner: CheckedClient;
} {
  let blocker: Awaited<ReturnType<typeof occupyProcessor>> | undefined;
  beforeAll(async () => {
    blocker = await occupyProcessor(jobs.svc);
  });
  afterAll(async () => {
    await blocker?.release();
  });
  return {
    release: async () => blocker?.release(),
    get jobId() {
      return blocker!.jobId;
    },
    get owner() {
      return blocker!.owner;
    },
  };
}

/** Follows GET /jobs/{id}/result (302) to the signed URL and downloads it. */
export async function downloadResult(
  client: ApiClient,
  jobId: string,
  query = '',
): Promise<{
  location: string;
  status: number;
  contentType: string | null;
  bytes: Buffer;
}> {
  const res = await client.get(`/jobs/${jobId}/result${query}`);
  if (res.status !== 302) throw new Error(`GET /jobs/${jobId}/result${query}: ${res.status} ${res.text}`);
  const location = res.headers.get('location')!;
  const file = await download(location);
  return {
    location,
    status: file.status,
    contentType: file.headers.get('content-type'),
    bytes: file.bytes,
  };
}

/** The exact key set of a create view (spec 2, partial views). */
export const CREATE_VIEW_FIELDS = ['created_at', 'credits', 'filename', 'id', 'object', 'source', 'status', 'target'];
export const JOB_ID = /^job_[0-9a-f]{32}$/;
export const ISO_UTC = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}(\.\d+)?Z$/;

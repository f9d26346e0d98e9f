import { JobFailedError, UpscalerError } from './errors';
import { sleep, Transport, type RetryInfo, type RetryOptions } from './http';
import { prepareInput, type ImageInput, type PreparedInput } from './input';
import {
  isFinal,
  type Account,
  type ApiKey,
  type ApiKeyCreate,
  type ApiKeyCreated,
  type ApiKeyList,
  type Content,
  type Fit,
  type DeliveryAttemptList,
  type Job,
  type JobCancelled,
  type JobCreated,
  type JobList,
  type JobListItem,
  type JobListQuery,
  type OutputFormat,
  type Quality,
  type ResultLink,
  type Target,
  type WebhookEndpoint,
  type WebhookEndpointCreate,
  type WebhookEndpointCreated,
  type WebhookEndpointList,
} from './types';

/** The standalone's default address (docs/api.md, Conventions). */
export const DEFAULT_BASE_URL = 'http://127.0.0.1:8080/api/v1';
/** The longest `Prefer: wait=N` the service honours. */
export const MAX_WAIT_SECONDS = 60;

export interface UpscalerOptions extends RetryOptions {
  /** An API key (`usk_…`). */
  apiKey: string;
  /** Default http://127.0.0.1:8080/api/v1; with or without the /api/v1. */
  baseUrl?: string;
  /** Another fetch (tests, proxies); the global one by default. */
  fetch?: typeof fetch;
  headers?: Record<string, string>;
  onRetry?: (info: RetryInfo) => void;
  /**
   * First pause between polls when the service does not hold the request (no Preference-Applied), growing by half
   * each time up to 2 s (spec 8: poll every one to two seconds). Default 500 ms.
   */
  pollIntervalMs?: number;
}

export interface WaitOptions {
  /** Give up waiting after this many seconds and return the job as it is then. Default: until it is final. */
  timeoutSeconds?: number;
  /** Told every job view seen while waiting (status, and progress from 0 to 1 where the service reports it). */
  onProgress?: (job: Job | JobCreated) => void;
  /** The longest wait asked of the service per request (`Prefer: wait=N`, 1..60). Default 60. */
  pollWaitSeconds?: number;
  signal?: AbortSignal;
}

export interface UpscaleOptions extends Omit<WaitOptions, 'timeoutSeconds'> {
  target?: Target;
  format?: OutputFormat;
  quality?: Quality;
  /** What the image shows: photo (the service's default) or illustration (docs/api.md, "Content hint"). */
  content?: Content;
  /** The job's display name; by default the file's own name where there is one. */
  filename?: string;
  /**
   * Output by pixel size instead of `target` (docs/api.md, "Output by pixel size"): the result's width and/or height;
   * the service runs (and charges) the smallest target that reaches it, then resizes exactly.
   */
  width?: number;
  height?: number;
  /** With both width and height: within (default, aspect kept), cover (cropped to fill) or exact (stretched). */
  fit?: Fit;
  /**
   * Makes the create safe to repeat (docs/api.md, Idempotency): a random UUID by default, the same for every retry of
   * this call. Pass your own to make a create safe across processes (the CLI derives one per file and settings).
   */
  idempotencyKey?: string;
  /** true: answer once the job is final; a number: wait at most that many seconds. Default: answer at once. */
  wait?: boolean | number;
}

export interface DownloadOptions {
  /** `result` (default) or `source` (the original upload). */
  asset?: 'result' | 'source';
  /** Told the bytes received so far and the total. */
  onProgress?: (received: number, total: number | undefined) => void;
  signal?: AbortSignal;
}

export interface Download {
  contentType: string;
  /** The size the service reports for the file. */
  bytes: number;
  /** The file's bytes, read once (absent when written to a destination). */
  body?: ReadableStream<Uint8Array>;
}

export type JobRef = string | { id: string; status?: string };

function randomUuid(): string {
  const c = globalThis.crypto;
  if (c?.randomUUID) return c.randomUUID();
  const b = new Uint8Array(16);
  c.getRandomValues(b);
  b[6] = (b[6]! & 0x0f) | 0x40;
  b[8] = (b[8]! & 0x3f) | 0x80;
  const h = Array.from(b, (x) => x.toString(16).padStart(2, '0')).join('');
  return `${h.slice(0, 8)}-${h.slice(8, 12)}-${h.slice(12, 16)}-${h.slice(16, 20)}-${h.slice(20)}`;
}

const idOf = (ref: JobRef) => encodeURIComponent(typeof ref === 'string' ? ref : ref.id);

/**
 * The Upscaler API (v1) over fetch: runs in browsers and in Node 20+. The Node entry (`@upscaler/client` under
 * Node) extends it with file paths for input and output.
 */
export class Upscaler {
  protected readonly http: Transport;
  private readonly pollIntervalMs: number;

  constructor(options: UpscalerOptions) {
    if (!options.apiKey) throw new UpscalerError('an API key is required (apiKey)');
    this.http = new Transport({ ...options, baseUrl: options.baseUrl ?? DEFAULT_BASE_URL });
    this.pollIntervalMs = options.pollIntervalMs ?? 500;
  }

  /** Turns an input into bytes or a URL; the Node entry adds file paths. */
  protected prepare(input: ImageInput, filename?: string): Promise<PreparedInput> {
    return prepareInput(input, filename);
  }

  /**
   * Creates a job (POST /upscale) from bytes, a stream or an image URL. With `wait` it answers the final job (or the
   * job as it is when `wait` seconds have passed): it asks the service to hold the answer (`Prefer: wait=N`) and,
   * while the job is not final, polls GET /jobs/{id} the same way, pausing between polls where the service does not
   * hold them.
   */
  upscale(input: ImageInput, options: UpscaleOptions & { wait: true | number }): Promise<Job>;
  upscale(input: ImageInput, options?: UpscaleOptions): Promise<Job | JobCreated>;
  async upscale(input: ImageInput, options: UpscaleOptions = {}): Promise<Job | JobCreated> {
    const started = Date.now();
    const prepared = await this.prepare(input, options.filename);
    const waitSeconds = options.wait === true ? Infinity : typeof options.wait === 'number' ? Math.max(0, options.wait) : 0;
    const headers: Record<string, string> = { 'idempotency-key': options.idempotencyKey ?? randomUuid() };
    const perRequest = Math.min(options.pollWaitSeconds ?? MAX_WAIT_SECONDS, MAX_WAIT_SECONDS, Math.ceil(waitSeconds));
    if (perRequest >= 1) headers.prefer = `wait=${perRequest}`;
    const fields = {
      target: options.target,
      format: options.format,
      quality: options.quality,
      content: options.content,
      filename: options.filename,
      width: options.width,
      height: options.height,
      fit: options.fit,
    };
    let r: { body: Job | JobCreated };
    if (prepared.kind === 'url') {
      const json = Object.fromEntries(Object.entries({ image_url: prepared.url, ...fields }).filter(([, v]) => v !== undefined));
      r = await this.http.json('POST', '/api/v1/upscale', { json, headers, repeatable: true, signal: options.signal });
    } else {
      const form = new FormData();
      form.append('image', prepared.blob, prepared.filename ?? 'image');
      for (const [k, v] of Object.entries(fields)) if (v !== undefined) form.append(k, String(v));
      r = await this.http.json('POST', '/api/v1/upscale', { body: form, headers, repeatable: true, signal: options.signal });
    }
    if (waitSeconds === 0) return r.body;
    options.onProgress?.(r.body);
    if (isFinal(r.body)) return r.body as Job;
    const left = waitSeconds === Infinity ? undefined : Math.max(0, waitSeconds - (Date.now() - started) / 1000);
    return this.waitForJob(r.body.id, { ...options, timeoutSeconds: left });
  }

  /** GET /jobs/{id}; `waitSeconds` asks the service to answer only once the job is final or that time has passed. */
  async getJob(ref: JobRef, opts: { waitSeconds?: number; signal?: AbortSignal } = {}): Promise<Job> {
    const headers: Record<string, string> = {};
    if (opts.waitSeconds && opts.waitSeconds >= 1) headers.prefer = `wait=${Math.min(MAX_WAIT_SECONDS, Math.ceil(opts.waitSeconds))}`;
    return (await this.http.json<Job>('GET', `/api/v1/jobs/${idOf(ref)}`, { headers, signal: opts.signal })).body;
  }

  /** Polls a job until it is final (or `timeoutSeconds` have passed: then the job as it is). */
  async waitForJob(ref: JobRef, opts: WaitOptions = {}): Promise<Job> {
    const deadline = opts.timeoutSeconds === undefined ? Infinity : Date.now() + opts.timeoutSeconds * 1000;
    let pause = this.pollIntervalMs;
    for (;;) {
      const left = deadline - Date.now();
      const n = Math.max(1, Math.min(opts.pollWaitSeconds ?? MAX_WAIT_SECONDS, MAX_WAIT_SECONDS, Math.ceil(left / 1000)));
      const r = await this.http.json<Job>('GET', `/api/v1/jobs/${idOf(ref)}`, { headers: { prefer: `wait=${n}` }, signal: opts.signal });
      opts.onProgress?.(r.body);
      if (isFinal(r.body) || Date.now() >= deadline) return r.body;
      // A service that held the request says so (Preference-Applied: wait=N): ask again at once. One that ignores
      // Prefer answered at once: pause first.
      if (!/\bwait=/i.test(r.headers.get('preference-applied') ?? '')) {
        await sleep(Math.max(0, Math.min(pause, deadline - Date.now())), opts.signal);
        pause = Math.min(2000, pause * 1.5);
      }
    }
  }

  /** One page of GET /jobs (newest first). */
  async listJobs(query: JobListQuery & { signal?: AbortSignal } = {}): Promise<JobList> {
    const { signal, ...q } = query;
    return (await this.http.json<JobList>('GET', '/api/v1/jobs', { query: q, signal })).body;
  }

  /** Every page of GET /jobs from `starting_after` (or the newest) on: `for await (const page of client.jobPages())`. */
  async *jobPages(query: JobListQuery & { signal?: AbortSignal } = {}): AsyncGenerator<JobList, void, undefined> {
    let cursor = query.starting_after;
    for (;;) {
      const page = await this.listJobs({ ...query, starting_after: cursor });
      yield page;
      if (!page.has_more || !page.next_cursor) return;
      cursor = page.next_cursor;
    }
  }

  /** Every job across pages (list view): `for await (const job of client.jobs({ status: 'failed' }))`. */
  async *jobs(query: JobListQuery & { signal?: AbortSignal } = {}): AsyncGenerator<JobListItem, void, undefined> {
    for await (const page of this.jobPages(query)) yield* page.data;
  }

  /** DELETE /jobs/{id}: cancels an unfinished job and refunds it (409 conflict once it is final). */
  async cancelJob(ref: JobRef, opts: { signal?: AbortSignal } = {}): Promise<JobCancelled> {
    return (await this.http.json<JobCancelled>('DELETE', `/api/v1/jobs/${idOf(ref)}`, { signal: opts.signal })).body;
  }

  /** GET /jobs/{id}/result?redirect=false: a fresh signed link (300 s). */
  async resultLink(ref: JobRef, opts: { asset?: 'result' | 'source'; signal?: AbortSignal } = {}): Promise<ResultLink> {
    const query = { redirect: 'false', asset: opts.asset };
    return (await this.http.json<ResultLink>('GET', `/api/v1/jobs/${idOf(ref)}/result`, { query, signal: opts.signal })).body;
  }

  /**
   * The result's bytes as a stream, or written into `to`. It asks for the signed link as JSON and fetches it without
   * the key (a browser would drop the Authorization header on a cross-origin redirect anyway).
   */
  async download(ref: JobRef, opts: DownloadOptions & { to?: WritableStream<Uint8Array> } = {}): Promise<Download> {
    if (typeof ref === 'object' && (opts.asset ?? 'result') === 'result' && (ref.status === 'failed' || ref.status === 'cancelled')) {
      throw new JobFailedError(ref as Job);
    }
    const link = await this.resultLink(ref, opts);
    const res = await this.http.fetchUnauthenticated(new URL(link.url, this.http.origin).toString(), opts.signal);
    let received = 0;
    const total = link.bytes;
    const body = res.body ?? new Blob([]).stream();
    const counted = body.pipeThrough(
      new TransformStream<Uint8Array, Uint8Array>({
        transform(chunk, controller) {
          received += chunk.byteLength;
          opts.onProgress?.(received, total);
          controller.enqueue(chunk);
        },
      }),
    );
    const result = { contentType: link.content_type, bytes: link.bytes };
    if (!opts.to) return { ...result, body: counted };
    await counted.pipeTo(opts.to, { signal: opts.signal });
    return result;
  }

  /** GET /account: balance, reserved and charged credits. */
  async account(opts: { signal?: AbortSignal } = {}): Promise<Account> {
    return (await this.http.json<Account>('GET', '/api/v1/account', { signal: opts.signal })).body;
  }

  async listApiKeys(): Promise<ApiKeyList> {
    return (await this.http.json<ApiKeyList>('GET', '/api/v1/api_keys')).body;
  }
  async createApiKey(body: ApiKeyCreate): Promise<ApiKeyCreated> {
    return (await this.http.json<ApiKeyCreated>('POST', '/api/v1/api_keys', { json: body })).body;
  }
  async revokeApiKey(id: string): Promise<ApiKey> {
    return (await this.http.json<ApiKey>('DELETE', `/api/v1/api_keys/${encodeURIComponent(id)}`)).body;
  }

  async createWebhookEndpoint(body: WebhookEndpointCreate): Promise<WebhookEndpointCreated> {
    return (await this.http.json<WebhookEndpointCreated>('POST', '/api/v1/webhook_endpoints', { json: body })).body;
  }
  async listWebhookEndpoints(): Promise<WebhookEndpointList> {
    return (await this.http.json<WebhookEndpointList>('GET', '/api/v1/webhook_endpoints')).body;
  }
  async getWebhookEndpoint(id: string): Promise<WebhookEndpoint> {
    return (await this.http.json<WebhookEndpoint>('GET', `/api/v1/webhook_endpoints/${encodeURIComponent(id)}`)).body;
  }
  async deleteWebhookEndpoint(id: string): Promise<WebhookEndpoint> {
    return (await this.http.json<WebhookEndpoint>('DELETE', `/api/v1/webhook_endpoints/${encodeURIComponent(id)}`)).body;
  }
  async listDeliveries(id: string, query: { limit?: number } = {}): Promise<DeliveryAttemptList> {
    return (await this.http.json<DeliveryAttemptList>('GET', `/api/v1/webhook_endpoints/${encodeURIComponent(id)}/deliveries`, { query }))
      .body;
  }
}

import { apiErrorFrom, UpscalerError } from './errors';

export interface RetryOptions {
  /** Retries after the first attempt (429, 503, and network errors of requests that are safe to repeat). Default 4. */
  maxRetries?: number;
  /** A Retry-After longer than this is not waited for: the error is thrown instead. Default 60,000 ms (one rate-limit window). */
  maxRetryDelayMs?: number;
}

export interface TransportOptions extends RetryOptions {
  apiKey?: string;
  /** `http://host:8080` or `http://host:8080/api/v1`. */
  baseUrl: string;
  fetch?: typeof fetch;
  /** Added to every request (User-Agent cannot be set from a browser). */
  headers?: Record<string, string>;
  /** Told before each retry wait: the CLI shows it. */
  onRetry?: (info: RetryInfo) => void;
}

export interface RetryInfo {
  method: string;
  path: string;
  attempt: number;
  delayMs: number;
  status?: number;
  code?: string;
}

export interface RequestOptions {
  query?: Record<string, string | number | boolean | undefined | null>;
  json?: unknown;
  body?: FormData;
  headers?: Record<string, string>;
  /** Safe to send again after a network error (GET, DELETE, a POST with an Idempotency-Key). */
  repeatable?: boolean;
  signal?: AbortSignal;
}

export interface RawResponse {
  status: number;
  headers: Headers;
  text: string;
}

const sleep = (ms: number, signal?: AbortSignal) =>
  new Promise<void>((resolve, reject) => {
    if (signal?.aborted) return reject(signal.reason);
    const t = setTimeout(() => {
      signal?.removeEventListener('abort', onAbort);
      resolve();
    }, ms);
    const onAbort = () => {
      clearTimeout(t);
      reject(signal!.reason);
    };
    signal?.addEventListener('abort', onAbort, { once: true });
  });
export { sleep };

/** Retry-After as seconds or an HTTP date (RFC 9110 §10.2.3), in milliseconds; undefined when absent or unreadable. */
export function retryAfterMs(value: string | null, now = Date.now()): number | undefined {
  if (value === null || value.trim() === '') return undefined;
  if (/^\d+$/.test(value.trim())) return Number(value.trim()) * 1000;
  const at = Date.parse(value);
  return Number.isNaN(at) ? undefined : Math.max(0, at - now);
}

/** Backoff without Retry-After: 0.5 s doubled per attempt up to 8 s, with ±20 % jitter. */
export function backoffMs(attempt: number): number {
  const base = Math.min(8000, 500 * 2 ** (attempt - 1));
  return Math.round(base * (0.8 + Math.random() * 0.4));
}

/** fetch with the key, the base URL, typed errors and retries; nothing here knows about jobs. */
export class Transport {
  readonly origin: string;
  readonly prefix: string;
  private readonly fetchImpl: typeof fetch;

  constructor(readonly options: TransportOptions) {
    const url = new URL(options.baseUrl);
    const path = url.pathname.replace(/\/+$/, '');
    // The generated paths start at /api/v1: a base URL that already ends there is its origin plus any mount prefix.
    this.prefix = path.endsWith('/api/v1') ? path.slice(0, -'/api/v1'.length) : path;
    this.origin = url.origin;
    const f = options.fetch ?? globalThis.fetch;
    if (!f) throw new UpscalerError('no fetch: pass options.fetch (Node 20+ and browsers have one)');
    this.fetchImpl = f.bind(globalThis);
  }

  url(path: string, query?: RequestOptions['query']): string {
    const u = new URL(`${this.origin}${this.prefix}${path}`);
    for (const [k, v] of Object.entries(query ?? {})) if (v !== undefined && v !== null) u.searchParams.set(k, String(v));
    return u.toString();
  }

  /** One call: answers 2xx (and 3xx, which is never followed) as they are; error answers become typed errors. */
  async request(method: string, path: string, opts: RequestOptions = {}): Promise<RawResponse> {
    const maxRetries = this.options.maxRetries ?? 4;
    const maxDelay = this.options.maxRetryDelayMs ?? 60_000;
    const headers: Record<string, string> = { accept: 'application/json', ...this.options.headers, ...opts.headers };
    if (this.options.apiKey) headers.authorization = `Bearer ${this.options.apiKey}`;
    let body: string | FormData | undefined = opts.body;
    if (opts.json !== undefined) {
      headers['content-type'] = 'application/json';
      body = JSON.stringify(opts.json);
    }
    const repeatable = opts.repeatable ?? (method === 'GET' || method === 'DELETE');
    for (let attempt = 1; ; attempt++) {
      let res: Response;
      try {
        // FormData and strings can be sent again as they are: a retry repeats the same bytes.
        res = await this.fetchImpl(this.url(path, opts.query), { method, headers, body, redirect: 'manual', signal: opts.signal });
      } catch (e) {
        if (opts.signal?.aborted || !repeatable || attempt > maxRetries) throw e;
        const delayMs = backoffMs(attempt);
        this.options.onRetry?.({ method, path, attempt, delayMs });
        await sleep(delayMs, opts.signal);
        continue;
      }
      const text = await res.text();
      if (res.status < 400) return { status: res.status, headers: res.headers, text };
      const error = apiErrorFrom(res.status, res.headers, text);
      // 429 and 503 are answered before anything is done (docs/api.md: rate limits, Retry-After on every 503);
      // 409 idempotency_in_progress asks to retry the same key shortly.
      const retriable = res.status === 429 || res.status === 503 || (error.code === 'idempotency_in_progress' && repeatable);
      if (!retriable || attempt > maxRetries) throw error;
      const delayMs = retryAfterMs(res.headers.get('retry-after')) ?? backoffMs(attempt);
      if (delayMs > maxDelay) throw error;
      this.options.onRetry?.({ method, path, attempt, delayMs, status: res.status, code: error.code });
      await sleep(delayMs, opts.signal);
    }
  }

  async json<T>(method: string, path: string, opts: RequestOptions = {}): Promise<{ body: T; status: number; headers: Headers }> {
    const r = await this.request(method, path, opts);
    return { body: JSON.parse(r.text) as T, status: r.status, headers: r.headers };
  }

  /** A GET of an absolute URL without the key (a signed download link), as a streaming Response. */
  async fetchUnauthenticated(url: string, signal?: AbortSignal): Promise<Response> {
    const maxRetries = this.options.maxRetries ?? 4;
    for (let attempt = 1; ; attempt++) {
      try {
        const res = await this.fetchImpl(url, { signal });
        if (res.ok) return res;
        const text = await res.text();
        if ((res.status === 429 || res.status === 503) && attempt <= maxRetries) {
          await sleep(retryAfterMs(res.headers.get('retry-after')) ?? backoffMs(attempt), signal);
          continue;
        }
        throw apiErrorFrom(res.status, res.headers, text);
      } catch (e) {
        if (e instanceof UpscalerError || signal?.aborted || attempt > maxRetries) throw e;
        await sleep(backoffMs(attempt), signal);
      }
    }
  }
}

/**
 * The one place this page talks to the network. Every call goes to this origin's /api/v1 with the key
 * as a bearer token (the CSP's connect-src 'self' would refuse anything else); signed downloads are
 * fetched from this origin without the key. Any answer but 2xx becomes an ApiError carrying the API's
 * own {code, message} (docs/api.md, Errors).
 */
export const API_BASE = '/api/v1';
const KEY_STORAGE = 'upscaler.dashboard.apiKey';
/** The route the embedded mode serves signed downloads under (docs/api.md, Signed downloads). */
const SIGNED_FILES_PATH = `${API_BASE}/files/`;

/**
 * Counts the keys this page has held: storing or forgetting a key starts a new sign-in, and an answer to a request
 * made under an earlier one is dropped (a balance read just before "Forget key" must not repaint the page after it).
 */
let signIn = 0;

/** The key lives in this tab's sessionStorage only: closing the tab forgets it. */
export function storedKey(): string {
  return sessionStorage.getItem(KEY_STORAGE) ?? '';
}

export function storeKey(key: string): void {
  sessionStorage.setItem(KEY_STORAGE, key);
  signIn += 1;
}

export function forgetKey(): void {
  sessionStorage.removeItem(KEY_STORAGE);
  signIn += 1;
}

export class ApiError extends Error {
  constructor(
    readonly status: number,
    readonly code: string,
    message: string,
  ) {
    super(message);
  }
}

/**
 * The answer to a request made with a key the page no longer holds. Callers treat it as nothing happened: showError
 * and the panels' loaders ignore it, so nothing of the old account reaches the page.
 */
export class StaleAnswer extends Error {
  constructor() {
    super('The key this request was made with has been forgotten.');
  }
}

export interface CallOptions {
  json?: unknown;
  form?: FormData;
  headers?: Record<string, string>;
  /** the key to use instead of the stored one (the connect form tries a key before keeping it) */
  key?: string;
  signal?: AbortSignal;
}

export interface Answer<T> {
  status: number;
  headers: Headers;
  body: T;
}

export async function call<T>(method: string, path: string, opts: CallOptions = {}): Promise<Answer<T>> {
  // a request with the stored key belongs to this sign-in; one with a key of its own (the connect form) to none
  const issuedIn = signIn;
  const stale = () => opts.key === undefined && signIn !== issuedIn;
  const headers: Record<string, string> = {
    Authorization: `Bearer ${opts.key ?? storedKey()}`,
    Accept: 'application/json',
    ...opts.headers,
  };
  let body: string | FormData | undefined;
  if (opts.form) {
    body = opts.form; // the browser writes the multipart Content-Type with its boundary
  } else if (opts.json !== undefined) {
    headers['Content-Type'] = 'application/json';
    body = JSON.stringify(opts.json);
  }
  let res: Response;
  try {
    res = await fetch(API_BASE + path, {
      method,
      headers,
      body,
      cache: 'no-store',
      credentials: 'omit',
      redirect: 'error',
      signal: opts.signal,
    });
  } catch (e) {
    if (stale()) throw new StaleAnswer();
    if (opts.signal?.aborted) throw e;
    throw new ApiError(0, 'network_error', 'The API could not be reached. Check your connection and try again.');
  }
  const text = await res.text();
  if (stale()) throw new StaleAnswer();
  let data: unknown = null;
  try {
    data = text ? JSON.parse(text) : null;
  } catch {
    data = null;
  }
  // 304: the caller sent If-None-Match and the resource has not changed (no body); it knows what to do with that
  if (!res.ok && res.status !== 304) {
    const err = isRecord(data) && isRecord(data.error) ? data.error : null;
    const code = err && typeof err.code === 'string' ? err.code : `http_${res.status}`;
    const message = err && typeof err.message === 'string' ? err.message : `The API answered HTTP ${res.status}.`;
    throw new ApiError(res.status, code, message);
  }
  return { status: res.status, headers: res.headers, body: data as T };
}

/** call() for the body only. */
export async function api<T>(method: string, path: string, json?: unknown, key?: string): Promise<T> {
  return (await call<T>(method, path, { json, key })).body;
}

export interface DownloadedFile {
  blob: Blob;
  /** the name the service gave the download (Content-Disposition), when it gave one */
  filename: string | null;
}

/**
 * Fetches a signed download link when this origin serves it (the embedded mode's /api/v1/files/…,
 * docs/api.md "Signed downloads"); the signature is in the path and query, so the same path on this
 * origin is the same file, and no key is sent. A link to another origin (S3/MinIO in the distributed
 * mode) answers null: the CSP's connect-src 'self' forbids reading it, and the caller offers it as a
 * plain link instead.
 */
export async function fetchSignedFile(link: string, signal?: AbortSignal): Promise<DownloadedFile | null> {
  let url: URL;
  try {
    url = new URL(link, location.href);
  } catch {
    return null;
  }
  const own = url.origin === location.origin && url.pathname.startsWith(SIGNED_FILES_PATH);
  // the object store the service signs links for (distributed mode): the page's CSP names it in connect-src too
  if (!own && url.origin !== storageOrigin()) return null;
  const res = await fetch(own ? url.pathname + url.search : url.href, {
    cache: 'no-store',
    credentials: 'omit',
    redirect: 'error',
    signal,
  });
  if (!res.ok) throw new ApiError(res.status, `http_${res.status}`, `The download link answered HTTP ${res.status}.`);
  return { blob: await res.blob(), filename: filenameOf(res.headers.get('Content-Disposition')) };
}

/** The S3 origin the service's signed links point at, which the page may read (its <meta>, filled in by the api). */
function storageOrigin(): string | null {
  const value = document.querySelector<HTMLMetaElement>('meta[name="upscaler-storage-origin"]')?.content ?? '';
  return /^https?:\/\/[^/]+$/.test(value) ? value : null;
}

/** `attachment; filename*=UTF-8''cat-4x.png` -> `cat-4x.png`. */
export function filenameOf(disposition: string | null): string | null {
  if (!disposition) return null;
  const star = /filename\*=UTF-8''([^;]+)/i.exec(disposition);
  if (star) {
    try {
      return decodeURIComponent(star[1].trim());
    } catch {
      return null;
    }
  }
  const plain = /filename="?([^";]+)"?/i.exec(disposition);
  return plain ? plain[1].trim() : null;
}

/** A fresh Idempotency-Key (docs/api.md, Idempotency: a UUID recommended). */
export function newIdempotencyKey(): string {
  if (typeof crypto.randomUUID === 'function') return crypto.randomUUID();
  // randomUUID needs a secure context; getRandomValues does not.
  const b = crypto.getRandomValues(new Uint8Array(16));
  b[6] = (b[6] & 0x0f) | 0x40;
  b[8] = (b[8] & 0x3f) | 0x80;
  const hex = Array.from(b, (x) => x.toString(16).padStart(2, '0')).join('');
  return `${hex.slice(0, 8)}-${hex.slice(8, 12)}-${hex.slice(12, 16)}-${hex.slice(16, 20)}-${hex.slice(20)}`;
}

export function isRecord(v: unknown): v is Record<string, unknown> {
  return typeof v === 'object' && v !== null;
}

import type { IncomingMessage, OutgoingHttpHeaders } from 'node:http';
import { DomainError } from '@upscaler/contracts';
import { ForbiddenAddressError } from './guarded-lookup';
import { openGuardedRequest, type CaOption } from './guarded-request';
import { checkHttpsUrl, type HttpsTarget } from './https-url';
import { BodyTooLargeError, readCapped } from './read-capped';
import type { AddressPolicy } from './ssrf-guard';

export interface SafeFetchOptions extends AddressPolicy {
  /** the body may have at most this many bytes (spec 8: 10 MB for images) */
  maxBytes: number;
  /** one deadline for the whole fetch: every hop, DNS, TLS and the body */
  timeoutMs: number;
  /** redirects followed at most; one more answers image_fetch_failed */
  maxRedirects: number;
  /** extra trusted CAs for in-process tests; the service relies on NODE_EXTRA_CA_CERTS */
  ca?: CaOption;
  headers?: OutgoingHttpHeaders;
}

export interface SafeFetchResult {
  body: Buffer;
  contentType: string | null;
  /** the URL that answered, after redirects */
  finalUrl: string;
  status: number;
}

const REDIRECT_STATUSES = new Set([301, 302, 303, 307, 308]);
/** Headers that must not follow a redirect to another origin. */
const ORIGIN_BOUND_HEADERS = ['authorization', 'cookie', 'proxy-authorization'];

class FetchTimeout extends Error {}

/**
 * Fetches an image by URL under docs/design.md §4's SSRF rules: https only (on every hop), every resolved
 * address checked before connecting, redirects followed by hand and re-checked, size and time
 * bounded. Errors are DomainErrors: invalid_image_url (the URL or an address it leads to is not
 * allowed), image_fetch_failed (network, HTTP status, redirects, timeout), payload_too_large.
 */
export async function safeFetch(rawUrl: string, opts: SafeFetchOptions): Promise<SafeFetchResult> {
  const deadline = new AbortController();
  const timer = setTimeout(() => deadline.abort(new FetchTimeout()), opts.timeoutMs);
  const policy: AddressPolicy = { allowPrivateNetworks: opts.allowPrivateNetworks, allowAddresses: opts.allowAddresses };
  try {
    let target = targetOrThrow(rawUrl, undefined, 'image_url');
    let headers = withFetchDefaults(opts.headers);
    for (let hop = 0; ; hop++) {
      const res = await openGuardedRequest(target, { method: 'GET', headers, policy, ca: opts.ca, signal: deadline.signal });
      const status = res.statusCode ?? 0;
      if (REDIRECT_STATUSES.has(status)) {
        res.destroy();
        if (hop >= opts.maxRedirects) {
          throw new DomainError('image_fetch_failed', `image_url redirected more than ${opts.maxRedirects} times.`);
        }
        const location = res.headers.location;
        if (!location) throw new DomainError('image_fetch_failed', `image_url answered HTTP ${status} without a Location.`);
        const next = targetOrThrow(location, target.url, 'image_url redirected to a URL that');
        if (next.url.origin !== target.url.origin) headers = withoutOriginBound(headers);
        target = next;
        continue;
      }
      if (status < 200 || status > 299) {
        res.destroy();
        throw new DomainError('image_fetch_failed', `image_url answered HTTP ${status}.`, { status });
      }
      failFastOnDeclaredLength(res, opts.maxBytes);
      const body = await readCapped(res, opts.maxBytes, 'reject');
      return { body, contentType: res.headers['content-type'] ?? null, finalUrl: target.url.href, status };
    }
  } catch (err) {
    throw toDomainError(err, deadline.signal, opts);
  } finally {
    clearTimeout(timer);
  }
}

function targetOrThrow(raw: string, base: URL | undefined, subject: string): HttpsTarget {
  const check = checkHttpsUrl(raw, base);
  if (!check.ok) throw new DomainError('invalid_image_url', `${subject} ${check.reason}.`);
  return check.target;
}

function withFetchDefaults(headers: OutgoingHttpHeaders | undefined): OutgoingHttpHeaders {
  const out: OutgoingHttpHeaders = { 'user-agent': 'upscaler-image-fetch/1', accept: 'image/*' };
  for (const [k, v] of Object.entries(headers ?? {})) out[k.toLowerCase()] = v;
  // The byte limit applies to the image itself, so ask for it uncompressed.
  out['accept-encoding'] = 'identity';
  return out;
}

function withoutOriginBound(headers: OutgoingHttpHeaders): OutgoingHttpHeaders {
  const out = { ...headers };
  for (const h of ORIGIN_BOUND_HEADERS) delete out[h];
  return out;
}

/** A declared length above the limit fails before any body byte is read; a lower one is not trusted. */
function failFastOnDeclaredLength(res: IncomingMessage, maxBytes: number): void {
  const declared = Number(res.headers['content-length']);
  if (Number.isFinite(declared) && declared > maxBytes) {
    res.destroy();
    throw new BodyTooLargeError(maxBytes, 0);
  }
}

function toDomainError(err: unknown, signal: AbortSignal, opts: SafeFetchOptions): DomainError {
  if (err instanceof DomainError) return err;
  if (err instanceof BodyTooLargeError) {
    return new DomainError('payload_too_large', `The image at image_url is larger than ${opts.maxBytes.toLocaleString('en-US')} bytes.`, {
      maxBytes: opts.maxBytes,
    });
  }
  if (signal.aborted && signal.reason instanceof FetchTimeout) {
    return new DomainError('image_fetch_failed', `Fetching image_url timed out after ${opts.timeoutMs} ms.`);
  }
  if (err instanceof ForbiddenAddressError) {
    // The client learns the host was refused, not which internal address it resolved to.
    return new DomainError('invalid_image_url', `image_url host ${err.host} is not a public address.`, {
      host: err.host,
      address: err.address,
      range: err.range,
    });
  }
  const code = (err as NodeJS.ErrnoException | undefined)?.code;
  if (code === 'ENOTFOUND' || code === 'EAI_AGAIN') {
    return new DomainError('image_fetch_failed', 'The host of image_url could not be resolved.', { cause: code });
  }
  const reason = code ?? (err instanceof Error ? err.message : String(err));
  return new DomainError('image_fetch_failed', `The image could not be fetched from image_url (${reason}).`, {
    cause: reason,
  });
}

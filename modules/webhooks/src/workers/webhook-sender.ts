import { isIP } from 'node:net';
import { performance } from 'node:perf_hooks';
import {
  ForbiddenAddressError,
  openGuardedRequest,
  type CaOption,
  checkHttpsUrl,
  readCapped,
  type AddressPolicy,
} from '@upscaler/safe-fetch';

export interface SendWebhookOptions extends AddressPolicy {
  /** one deadline for the attempt: DNS, connect, TLS, the answer and its (capped) body */
  timeoutMs: number;
  ca?: CaOption;
}

/**
 * One delivery attempt. Success is exactly `error === null`, which happens only for a 2xx answer.
 * `statusCode` is the endpoint's answer when there was one (410 asks us to disable the endpoint),
 * null when none came (refused address, DNS, connection, TLS, timeout).
 */
export interface WebhookAttempt {
  statusCode: number | null;
  error: string | null;
  durationMs: number;
}

/** A receiver's answer body is read up to this size and discarded, so it cannot hold us. */
export const WEBHOOK_RESPONSE_CAP_BYTES = 64 * 1024;

class AttemptTimeout extends Error {}

/**
 * POSTs a signed delivery under the same SSRF guard as image URLs (docs/design.md §4 "Webhooks"). Redirects
 * are not followed: a 3xx is a failed attempt (a receiver that moved must be re-registered, and a
 * redirect must not carry the signed payload somewhere unchecked). Never throws.
 */
export async function sendWebhook(
  url: string,
  headers: Record<string, string>,
  body: string,
  opts: SendWebhookOptions,
): Promise<WebhookAttempt> {
  const started = performance.now();
  const elapsed = (): number => Math.round((performance.now() - started) * 10) / 10;
  const check = checkHttpsUrl(url);
  if (!check.ok) return { statusCode: null, error: `webhook URL ${check.reason}`, durationMs: elapsed() };

  const deadline = new AbortController();
  const timer = setTimeout(() => deadline.abort(new AttemptTimeout()), opts.timeoutMs);
  const policy: AddressPolicy = { allowPrivateNetworks: opts.allowPrivateNetworks, allowAddresses: opts.allowAddresses };
  try {
    const res = await openGuardedRequest(check.target, {
      method: 'POST',
      headers: {
        'content-type': 'application/json',
        'user-agent': 'upscaler-webhooks/1',
        ...headers,
        'content-length': Buffer.byteLength(body),
      },
      body,
      policy,
      ca: opts.ca,
      signal: deadline.signal,
    });
    const statusCode = res.statusCode ?? null;
    // The answer's head decides the attempt; the body is only drained (capped, bounded by the
    // deadline) so the receiver's write completes, and a failure while draining changes nothing.
    await readCapped(res, WEBHOOK_RESPONSE_CAP_BYTES, 'truncate').catch(() => undefined);
    return { statusCode, error: statusError(statusCode), durationMs: elapsed() };
  } catch (err) {
    return { statusCode: null, error: describeFailure(err, deadline.signal, opts.timeoutMs), durationMs: elapsed() };
  } finally {
    clearTimeout(timer);
  }
}

function statusError(status: number | null): string | null {
  if (status !== null && status >= 200 && status <= 299) return null;
  if (status !== null && status >= 300 && status <= 399) return `HTTP ${status}: redirects are not followed`;
  return `HTTP ${status}`;
}

/** Connection failures in words, without the address connected to (node's messages end with it). */
const CONNECT_FAILURES: Record<string, string> = {
  ECONNREFUSED: 'the connection was refused',
  ECONNRESET: 'the connection was reset',
  ETIMEDOUT: 'the connection timed out',
  EHOSTUNREACH: 'the host is unreachable',
  ENETUNREACH: 'the network is unreachable',
  EADDRNOTAVAIL: 'the address is not available',
};

/**
 * The delivery log's words for a failed attempt. The log is shown to the account, so it never carries the
 * address a name resolved to (an oracle of internal DNS): refusals name the host, connection failures their
 * errno code, and any address left in another message is blanked.
 */
function describeFailure(err: unknown, signal: AbortSignal, timeoutMs: number): string {
  if (signal.aborted && signal.reason instanceof AttemptTimeout) return `timed out after ${timeoutMs} ms`;
  if (err instanceof ForbiddenAddressError) return `refused: ${err.message}`;
  const e = err as (NodeJS.ErrnoException & { address?: unknown }) | undefined;
  if (e?.code && (CONNECT_FAILURES[e.code] || e.syscall === 'connect')) {
    return `${e.code}: ${CONNECT_FAILURES[e.code] ?? 'the connection failed'}`;
  }
  const message = withoutAddresses(e?.message ?? String(err));
  if (e?.code && !message.includes(e.code)) return `${e.code}: ${message}`;
  return message;
}

function withoutAddresses(message: string): string {
  return message
    .replace(/\[?[0-9a-f]*:[0-9a-f:.]*:[0-9a-f:.]*\]?(?::\d+)?/gi, (m) => (isIP(m.replace(/^\[|\](?::\d+)?$/g, '')) ? '(address)' : m))
    .replace(/\b\d{1,3}(?:\.\d{1,3}){3}(?::\d+)?\b/g, '(address)');
}

import { performance } from 'node:perf_hooks';
import { ForbiddenAddressError } from './guarded-lookup';
import { openGuardedRequest, type CaOption } from './guarded-request';
import { checkHttpsUrl } from './https-url';
import { readCapped } from './read-capped';
import type { AddressPolicy } from './ssrf-guard';

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

function describeFailure(err: unknown, signal: AbortSignal, timeoutMs: number): string {
  if (signal.aborted && signal.reason instanceof AttemptTimeout) return `timed out after ${timeoutMs} ms`;
  if (err instanceof ForbiddenAddressError) return `refused: ${err.message}`;
  const e = err as NodeJS.ErrnoException | undefined;
  if (e?.code && e.message && !e.message.includes(e.code)) return `${e.code}: ${e.message}`;
  return e?.message ?? String(err);
}

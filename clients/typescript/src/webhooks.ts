import { WebhookVerificationError } from './errors';
import type { WebhookEvent } from './types';

/**
 * Standard Webhooks verification (docs/api.md, Webhooks: Signing) with WebCrypto, so it runs in Node 20+, browsers
 * and edge runtimes alike: `v1,` + base64 HMAC-SHA256 of `{webhook-id}.{webhook-timestamp}.{body}`, keyed by the
 * base64 part of the secret after `whsec_`; several signatures may be sent, space-separated, and any one that
 * matches a given secret verifies (a rotation's overlap window).
 */

export type WebhookHeaders = Headers | Record<string, string | string[] | undefined>;

export interface VerifyOptions {
  /** How far the timestamp may be from now. Default 300 s. */
  toleranceSeconds?: number;
  /** Now, in milliseconds (tests). */
  now?: number;
}

function header(headers: WebhookHeaders, name: string): string | undefined {
  if (typeof Headers !== 'undefined' && headers instanceof Headers) return headers.get(name) ?? undefined;
  const rec = headers as Record<string, string | string[] | undefined>;
  const key = Object.keys(rec).find((k) => k.toLowerCase() === name);
  const v = key === undefined ? undefined : rec[key];
  return Array.isArray(v) ? v.join(' ') : v;
}

function fromBase64(b64: string): Uint8Array {
  const bin = atob(b64);
  const out = new Uint8Array(bin.length);
  for (let i = 0; i < bin.length; i++) out[i] = bin.charCodeAt(i);
  return out;
}

function toBase64(bytes: Uint8Array): string {
  let bin = '';
  for (const b of bytes) bin += String.fromCharCode(b);
  return btoa(bin);
}

/** Compares without an early exit, so the time taken does not tell how much of a forged signature was right. */
function sameBytes(a: Uint8Array, b: Uint8Array): boolean {
  if (a.length !== b.length) return false;
  let diff = 0;
  for (let i = 0; i < a.length; i++) diff |= a[i]! ^ b[i]!;
  return diff === 0;
}

function secretKey(secret: string): Uint8Array {
  try {
    return fromBase64(secret.startsWith('whsec_') ? secret.slice('whsec_'.length) : secret);
  } catch {
    throw new WebhookVerificationError('the webhook secret is not whsec_ followed by base64');
  }
}

async function hmac(key: Uint8Array, message: Uint8Array): Promise<Uint8Array> {
  const subtle = globalThis.crypto?.subtle;
  if (!subtle) throw new WebhookVerificationError('WebCrypto (crypto.subtle) is not available here');
  const k = await subtle.importKey('raw', key, { name: 'HMAC', hash: 'SHA-256' }, false, ['sign']);
  return new Uint8Array(await subtle.sign('HMAC', k, message));
}

function signedContent(id: string, timestamp: string, body: Uint8Array): Uint8Array {
  const prefix = new TextEncoder().encode(`${id}.${timestamp}.`);
  const all = new Uint8Array(prefix.length + body.length);
  all.set(prefix);
  all.set(body, prefix.length);
  return all;
}

/** The `webhook-signature` value for a body (`v1,<base64>`): what the service sends; useful to test a receiver. */
export async function signWebhook(secret: string, id: string, timestamp: number | string, body: string | Uint8Array): Promise<string> {
  const bytes = typeof body === 'string' ? new TextEncoder().encode(body) : body;
  return `v1,${toBase64(await hmac(secretKey(secret), signedContent(id, String(timestamp), bytes)))}`;
}

/**
 * Verifies a delivery from the raw body (the exact bytes received, before any JSON parsing) and its headers, and
 * answers the parsed event; throws WebhookVerificationError otherwise. `secret` may list several (rotation).
 */
export async function verifyWebhook(
  secret: string | readonly string[],
  headers: WebhookHeaders,
  rawBody: string | Uint8Array,
  options: VerifyOptions = {},
): Promise<WebhookEvent> {
  const id = header(headers, 'webhook-id');
  const timestamp = header(headers, 'webhook-timestamp');
  const signatures = header(headers, 'webhook-signature');
  if (!id || !timestamp || !signatures) throw new WebhookVerificationError('missing webhook-id, webhook-timestamp or webhook-signature');
  if (!/^\d+$/.test(timestamp)) throw new WebhookVerificationError('webhook-timestamp is not Unix seconds');
  const now = (options.now ?? Date.now()) / 1000;
  const tolerance = options.toleranceSeconds ?? 300;
  if (Math.abs(now - Number(timestamp)) > tolerance)
    throw new WebhookVerificationError(`webhook-timestamp is more than ${tolerance} s from now`);
  const body = typeof rawBody === 'string' ? new TextEncoder().encode(rawBody) : rawBody;
  const content = signedContent(id, timestamp, body);
  const given = signatures
    .split(' ')
    .map((entry) => entry.split(','))
    .filter(([version, sig]) => version === 'v1' && sig)
    .map(([, sig]) => {
      try {
        return fromBase64(sig!);
      } catch {
        return new Uint8Array();
      }
    });
  for (const s of typeof secret === 'string' ? [secret] : secret) {
    const expected = await hmac(secretKey(s), content);
    if (given.some((g) => sameBytes(g, expected))) {
      try {
        return JSON.parse(new TextDecoder().decode(body)) as WebhookEvent;
      } catch {
        throw new WebhookVerificationError('the signed body is not JSON');
      }
    }
  }
  throw new WebhookVerificationError('no signature matches');
}

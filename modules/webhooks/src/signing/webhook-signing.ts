import { randomBytes } from 'node:crypto';
import { Webhook } from 'standardwebhooks';

/** The headers of one signed delivery (Standard Webhooks; docs/design.md §6 "webhook endpoint"). */
export interface WebhookSignatureHeaders extends Record<string, string> {
  'webhook-id': string;
  'webhook-timestamp': string;
  'webhook-signature': string;
}

const SECRET_PREFIX = 'whsec_';

/** A new endpoint secret: `whsec_` + base64 of 24 random bytes (shown to the owner once). */
export function generateWebhookSecret(): string {
  return SECRET_PREFIX + randomBytes(24).toString('base64');
}

/**
 * Signs one delivery: `webhook-signature` is `v1,` + base64 HMAC-SHA256 of `{id}.{timestamp}.{body}`
 * keyed by the base64-decoded part of the secret after `whsec_`; the timestamp is unix seconds.
 * `body` must be the exact bytes sent. With several secrets (during a rotation's overlap: the new one, then
 * the previous one) the header holds one `v1,…` per secret, space separated, in that order: Standard Webhooks
 * receivers accept a message when any of them matches, so a receiver still on the old secret and one already
 * on the new one both verify it.
 */
export function signWebhook(secret: string | readonly string[], msgId: string, timestamp: Date, body: string): WebhookSignatureHeaders {
  const secrets = typeof secret === 'string' ? [secret] : secret;
  if (secrets.length === 0) throw new Error('signWebhook needs at least one secret');
  return {
    'webhook-id': msgId,
    'webhook-timestamp': String(Math.floor(timestamp.getTime() / 1000)),
    'webhook-signature': secrets.map((s) => new Webhook(s).sign(msgId, timestamp, body)).join(' '),
  };
}

/**
 * What a receiver does (tests, docs): true when one of the `v1` signatures matches and the
 * timestamp is within the library's 5-minute tolerance of now.
 */
export function verifyWebhook(secret: string, headers: Record<string, string>, body: string): boolean {
  try {
    new Webhook(secret).verify(body, headers, { jsonParse: false });
    return true;
  } catch {
    return false;
  }
}

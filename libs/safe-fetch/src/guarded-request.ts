import type { IncomingMessage, OutgoingHttpHeaders } from 'node:http';
import { request } from 'node:https';
import { assertLiteralAllowed, createGuardedLookup } from './guarded-lookup';
import type { HttpsTarget } from './https-url';
import type { AddressPolicy } from './ssrf-guard';

/** Trusted CAs for one request; unset means Node's roots plus NODE_EXTRA_CA_CERTS. */
export type CaOption = string | Buffer | Array<string | Buffer>;

export interface GuardedRequestOptions {
  method: 'GET' | 'POST';
  headers: OutgoingHttpHeaders;
  body?: string | Buffer;
  policy: AddressPolicy;
  ca?: CaOption;
  signal: AbortSignal;
}

/**
 * Opens one HTTPS exchange to an already URL-checked target and resolves with the response head;
 * redirects are the caller's business. The connection can only reach a checked address: literal
 * IPs are checked here, names by the guarded lookup. `agent: false` gives every request its own
 * socket, so no pooled socket opened under a laxer policy (or to an older DNS answer) is reused.
 */
export function openGuardedRequest(target: HttpsTarget, opts: GuardedRequestOptions): Promise<IncomingMessage> {
  return new Promise((resolve, reject) => {
    if (target.isLiteral) {
      try {
        assertLiteralAllowed(target.host, opts.policy);
      } catch (e) {
        reject(e);
        return;
      }
    }
    const req = request({
      protocol: 'https:',
      hostname: target.host,
      port: target.url.port === '' ? 443 : Number(target.url.port),
      path: target.url.pathname + target.url.search,
      method: opts.method,
      headers: opts.headers,
      lookup: createGuardedLookup(opts.policy),
      agent: false,
      ca: opts.ca,
      signal: opts.signal,
    });
    req.once('response', resolve);
    // `on`, not `once`: a late second error (bytes after a complete answer, abort after settle)
    // must find a listener rather than crash the process.
    req.on('error', reject);
    req.end(opts.body);
  });
}

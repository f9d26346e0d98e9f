import { isIP } from 'node:net';

/** An outbound target that passed the URL rules: its parsed URL and the host to connect to. */
export interface HttpsTarget {
  url: URL;
  /** hostname without IPv6 brackets, as net/tls expect it */
  host: string;
  /** true when host is an IP literal: net then skips `lookup`, so the caller checks it itself */
  isLiteral: boolean;
}

export type HttpsUrlCheck = { ok: true; target: HttpsTarget } | { ok: false; reason: string };

/**
 * The URL rules shared by image URLs and webhook URLs (docs/design.md §4): absolute https only, no user
 * info (credentials in a URL would be sent to whoever the URL names, and hide the real host from
 * a human reader). `base` resolves a redirect's relative Location.
 */
export function checkHttpsUrl(raw: string, base?: URL): HttpsUrlCheck {
  let url: URL;
  try {
    url = new URL(raw, base);
  } catch {
    return { ok: false, reason: 'is not a valid URL' };
  }
  if (url.protocol !== 'https:') return { ok: false, reason: `must use https, not ${url.protocol.replace(/:$/, '')}` };
  if (url.username !== '' || url.password !== '') return { ok: false, reason: 'must not carry credentials' };
  if (url.hostname === '') return { ok: false, reason: 'has no host' };
  const host = url.hostname.startsWith('[') ? url.hostname.slice(1, -1) : url.hostname;
  return { ok: true, target: { url, host, isLiteral: isIP(host) !== 0 } };
}

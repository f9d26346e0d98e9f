import ipaddr from 'ipaddr.js';

/**
 * Which peers may tell the api a client's address in X-Forwarded-For (Express's `trust proxy`, evaluated by
 * proxy-addr from the right of the header): `false` trusts none (the socket's address is the client's), a number
 * trusts that many hops, a list trusts peers in those ranges (`loopback`, `linklocal`, `uniquelocal`, addresses,
 * CIDR ranges). The client address is what the unkeyed rate-limit window counts (docs/api.md, "Rate limits").
 */
export type TrustProxy = false | number | string[];

/** Proxies in the pod's own network: loopback, link-local and private ranges (where an ingress controller sits). */
export const DEFAULT_TRUST_PROXY = 'loopback, linklocal, uniquelocal';

const RANGE_NAMES = new Set(['loopback', 'linklocal', 'uniquelocal']);

function isAddressOrRange(entry: string): boolean {
  if (ipaddr.isValid(entry)) return true;
  try {
    ipaddr.parseCIDR(entry);
    return true;
  } catch {
    return false;
  }
}

/** UPSCALE_TRUST_PROXY -> the Express setting, or a message saying what is wrong with it. Pure. */
export function parseTrustProxy(value: string | undefined): { ok: TrustProxy } | { error: string } {
  const v = (value ?? DEFAULT_TRUST_PROXY).trim();
  if (v === 'false' || v === 'none') return { ok: false };
  if (v === 'true') {
    return {
      error:
        'true would let any client choose the address it is counted under; list the proxies (names, addresses or CIDR ranges) or give a hop count',
    };
  }
  if (/^\d+$/.test(v)) return { ok: Number(v) };
  const entries = v
    .split(',')
    .map((s) => s.trim())
    .filter(Boolean);
  const bad = entries.filter((e) => !RANGE_NAMES.has(e) && !isAddressOrRange(e));
  if (entries.length === 0 || bad.length > 0) {
    return {
      error: `must be false, a hop count, or a comma-separated list of loopback, linklocal, uniquelocal, addresses and CIDR ranges (not ${bad.join(', ') || 'empty'})`,
    };
  }
  return { ok: entries };
}

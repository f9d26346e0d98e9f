import { isIP } from 'node:net';
import ipaddr from 'ipaddr.js';

/**
 * Which addresses outbound requests (image URLs, webhook deliveries) may reach.
 * docs/design.md §4 "Image by URL" and "Webhooks": only public unicast addresses, unless the test-only
 * switch UPSCALE_ALLOW_PRIVATE_NETWORKS (docs/design.md §6, default false) is on.
 */
export interface AddressPolicy {
  /** true lets requests reach every address (loopback, private, ...): tests and local use only. */
  allowPrivateNetworks: boolean;
  /**
   * Exact addresses let through whatever their range, the switch being off. Lets a test pin one
   * loopback server while every other non-public address stays refused; empty in production.
   */
  allowAddresses?: readonly string[];
}

export const DEFAULT_ADDRESS_POLICY: AddressPolicy = Object.freeze({ allowPrivateNetworks: false });

/** The verdict on one address, with the range that decided it (for logs, details and tests). */
export interface AddressVerdict {
  forbidden: boolean;
  /** ipaddr.js range name, with embedded IPv4 shown as `outer>inner` (e.g. `6to4>private`). */
  range: string;
}

/**
 * Classifies an address as Node would connect to it. Only ipaddr.js's `unicast` range is public;
 * every special range (loopback, private, linkLocal incl. 169.254.169.254, carrierGradeNat,
 * uniqueLocal, unspecified incl. 0.0.0.0/8, broadcast, multicast, reserved, benchmarking,
 * documentation, ...) is refused. IPv6 forms that carry an IPv4 address are judged by that address.
 */
export function classifyAddress(ip: string): AddressVerdict {
  // node's own test: a string Node would not connect to as an address is no address at all.
  const family = isIP(ip);
  if (family === 0) return { forbidden: true, range: 'invalid' };
  if (family === 4) return verdictV4('', ipaddr.IPv4.parse(ip));
  return classifyV6(ipaddr.IPv6.parse(canonicalV6(ip)));
}

/**
 * The WHATWG URL parser's serialization of an IPv6 address (hex groups only, zone dropped: the
 * range is a property of the address). Needed because ipaddr.js reads the IPv4-compatible text
 * `::127.0.0.1` as the IPv4-mapped `::ffff:127.0.0.1`, while the socket reads `::7f00:1`.
 */
function canonicalV6(ip: string): string {
  const bare = ip.split('%')[0];
  return new URL(`http://[${bare}]/`).hostname.slice(1, -1);
}

/** True when an outbound request must not connect to `ip` (public unicast only, see classifyAddress). */
export function isForbiddenAddress(ip: string): boolean {
  return classifyAddress(ip).forbidden;
}

/** The policy applied to one address: the switch or an exact allow-list entry override the ranges. */
export function isAddressAllowed(ip: string, policy: AddressPolicy): boolean {
  if (isIP(ip) === 0) return false;
  if (policy.allowPrivateNetworks) return true;
  if (policy.allowAddresses?.some((a) => sameAddress(a, ip))) return true;
  return !isForbiddenAddress(ip);
}

function sameAddress(a: string, b: string): boolean {
  const family = isIP(a);
  if (family === 0 || family !== isIP(b)) return false;
  return family === 4 ? a === b : canonicalV6(a) === canonicalV6(b);
}

function verdictV4(prefix: string, v4: ipaddr.IPv4): AddressVerdict {
  const range = v4.range();
  return { forbidden: range !== 'unicast', range: prefix + range };
}

function v4FromParts(high: number, low: number): ipaddr.IPv4 {
  return new ipaddr.IPv4([high >> 8, high & 0xff, low >> 8, low & 0xff]);
}

function classifyV6(v6: ipaddr.IPv6): AddressVerdict {
  const p = v6.parts;
  const range = v6.range();
  switch (range) {
    case 'ipv4Mapped': // ::ffff:a.b.c.d is a plain IPv4 connection on a dual-stack socket
      return verdictV4('ipv4Mapped>', v6.toIPv4Address());
    case '6to4': // 2002:AABB:CCDD::/48 tunnels to the IPv4 AABBCCDD (RFC 3056)
      return verdictV4('6to4>', v4FromParts(p[1], p[2]));
    case 'teredo': {
      // 2001:0:SSSS:SSSS:flags:port:~CCCC:~CCCC (RFC 4380): both the server and the obfuscated
      // client IPv4 must be public.
      const server = verdictV4('teredo>', v4FromParts(p[2], p[3]));
      if (server.forbidden) return server;
      return verdictV4('teredo>', v4FromParts(p[6] ^ 0xffff, p[7] ^ 0xffff));
    }
    case 'rfc6052':
      // 64:ff9b::/96 is the well-known NAT64 prefix (a DNS64 network synthesizes it for every
      // IPv4-only host), judged by its IPv4; the local-use 64:ff9b:1::/48 is refused outright.
      if (p[2] === 0 && p[3] === 0 && p[4] === 0 && p[5] === 0) return verdictV4('nat64>', v4FromParts(p[6], p[7]));
      return { forbidden: true, range: 'rfc6052' };
    case 'unicast':
      // ipaddr.js calls the deprecated IPv4-compatible ::a.b.c.d (RFC 4291 2.5.5.1) unicast;
      // it is never a legitimate destination, so it is refused whatever it embeds.
      if (p[0] === 0 && p[1] === 0 && p[2] === 0 && p[3] === 0 && p[4] === 0 && p[5] === 0) {
        return { forbidden: true, range: 'ipv4Compatible>' + v4FromParts(p[6], p[7]).range() };
      }
      return { forbidden: false, range };
    default:
      return { forbidden: true, range };
  }
}

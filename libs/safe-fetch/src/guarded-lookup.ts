import { lookup as dnsLookup, type LookupAddress } from 'node:dns';
import type { LookupFunction } from 'node:net';
import { classifyAddress, isAddressAllowed, type AddressPolicy } from './ssrf-guard';

/**
 * Raised (through the socket's 'error') when a host resolves to, or is, a refused address. Its message names
 * the host only: callers show it to clients (the webhook delivery log), and the address a name resolved to
 * would be an oracle of internal DNS. `address` and `range` are kept for logs.
 */
export class ForbiddenAddressError extends Error {
  readonly code = 'ERR_FORBIDDEN_ADDRESS';
  constructor(
    readonly host: string,
    readonly address: string,
    readonly range: string,
  ) {
    super(host === address ? `${address} (${range}) is not a public address` : `${host} resolves to a non-public address`);
    this.name = 'ForbiddenAddressError';
  }
}

/**
 * A `lookup` for net/tls/https that resolves every address of the host and refuses the whole host
 * if any one of them is not allowed (docs/design.md §4: "every resolved address checked"). It hands the
 * socket exactly the addresses it checked, so the address checked is the address connected to:
 * no second resolution that a rebinding DNS server could answer differently.
 */
export function createGuardedLookup(policy: AddressPolicy): LookupFunction {
  return (hostname, options, callback) => {
    dnsLookup(hostname, { all: true, family: options.family ?? 0, hints: options.hints }, (err, addresses) => {
      if (err) return callback(err, '', undefined);
      const checked: LookupAddress[] = addresses;
      if (checked.length === 0) {
        const none: NodeJS.ErrnoException = new Error(`${hostname} has no address`);
        none.code = 'ENOTFOUND';
        return callback(none, '', undefined);
      }
      for (const a of checked) {
        if (!isAddressAllowed(a.address, policy)) {
          return callback(new ForbiddenAddressError(hostname, a.address, classifyAddress(a.address).range), '', undefined);
        }
      }
      // net asks for all addresses when it races families (autoSelectFamily), one otherwise.
      if (options.all) return callback(null, checked);
      return callback(null, checked[0].address, checked[0].family);
    });
  };
}

/** The check for a literal IP host, which net connects to without calling `lookup`. */
export function assertLiteralAllowed(host: string, policy: AddressPolicy): void {
  if (!isAddressAllowed(host, policy)) throw new ForbiddenAddressError(host, host, classifyAddress(host).range);
}

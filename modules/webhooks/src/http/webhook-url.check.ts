import { lookup } from 'node:dns/promises';
import { DomainError } from '@upscaler/contracts';
import { checkHttpsUrl, isAddressAllowed, type AddressPolicy } from '@upscaler/safe-fetch';

/**
 * Registration-time check of a webhook URL (docs/design.md §4: the same SSRF guard as image URLs): https,
 * no credentials, and no private address among those the host resolves to now. Every delivery is
 * checked again at connect time, so a later DNS change cannot slip through.
 */
export async function assertWebhookUrlAllowed(raw: string, policy: AddressPolicy): Promise<void> {
  const check = checkHttpsUrl(raw);
  if (!check.ok) throw new DomainError('invalid_request', `url ${check.reason}.`);
  const { host, isLiteral } = check.target;
  const addresses = isLiteral
    ? [host]
    : await lookup(host, { all: true }).then(
        (a) => a.map((x) => x.address),
        () => [],
      );
  const refused = addresses.find((a) => !isAddressAllowed(a, policy));
  if (refused === undefined) return;
  // The answer names the host the caller gave, never the address a name resolved to (no oracle of internal DNS).
  if (isLiteral) throw new DomainError('invalid_request', `url host ${host} is not a public address.`);
  throw new DomainError('invalid_request', `url host ${host} resolves to a non-public address.`);
}

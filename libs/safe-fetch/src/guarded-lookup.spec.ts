import type { LookupAddress } from 'node:dns';
import { assertLiteralAllowed, createGuardedLookup, ForbiddenAddressError } from './guarded-lookup';

type Answer = { err: NodeJS.ErrnoException | null; address: string | LookupAddress[]; family?: number };

function resolveWith(lookup: ReturnType<typeof createGuardedLookup>, host: string, all: boolean): Promise<Answer> {
  return new Promise((resolve) => lookup(host, { all, family: 4 }, (err, address, family) => resolve({ err, address, family })));
}

// Real resolution of `localhost` (the hosts file: 127.0.0.1), no fake resolver.
describe('the guarded lookup handed to net/tls', () => {
  test('refuses a name resolving to loopback with the address and range it checked', async () => {
    const { err } = await resolveWith(createGuardedLookup({ allowPrivateNetworks: false }), 'localhost', true);
    expect(err).toBeInstanceOf(ForbiddenAddressError);
    expect(err).toMatchObject({ code: 'ERR_FORBIDDEN_ADDRESS', host: 'localhost', address: '127.0.0.1', range: 'loopback' });
  });

  test('its message names the host only, never the address a name resolved to (callers show it to clients)', async () => {
    const { err } = await resolveWith(createGuardedLookup({ allowPrivateNetworks: false }), 'localhost', true);
    expect(err?.message).toBe('localhost resolves to a non-public address');
    expect(new ForbiddenAddressError('10.1.2.3', '10.1.2.3', 'private').message).toBe('10.1.2.3 (private) is not a public address');
  });

  test('hands the socket exactly the checked addresses, in the shape net asked for', async () => {
    const lookup = createGuardedLookup({ allowPrivateNetworks: true });
    expect(await resolveWith(lookup, 'localhost', true)).toEqual({
      err: null,
      address: [{ address: '127.0.0.1', family: 4 }],
      family: undefined,
    });
    expect(await resolveWith(lookup, 'localhost', false)).toEqual({ err: null, address: '127.0.0.1', family: 4 });
  });

  test('passes resolver failures through', async () => {
    const { err } = await resolveWith(createGuardedLookup({ allowPrivateNetworks: true }), 'no-such-host.invalid', true);
    expect(err?.code).toBe('ENOTFOUND');
  });

  test('literal addresses, which net connects to without a lookup, are checked by the same policy', () => {
    expect(() => assertLiteralAllowed('10.1.2.3', { allowPrivateNetworks: false })).toThrow(
      new ForbiddenAddressError('10.1.2.3', '10.1.2.3', 'private'),
    );
    expect(() => assertLiteralAllowed('10.1.2.3', { allowPrivateNetworks: true })).not.toThrow();
    expect(() => assertLiteralAllowed('8.8.4.4', { allowPrivateNetworks: false })).not.toThrow();
  });
});

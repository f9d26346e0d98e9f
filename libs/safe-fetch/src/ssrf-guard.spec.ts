import { classifyAddress, isAddressAllowed, isForbiddenAddress } from './ssrf-guard';

// docs/design.md §4 "Image by URL": private/loopback/link-local/metadata/CGNAT/ULA/IPv4-mapped refused.
describe('the SSRF address table', () => {
  const refused: Array<[string, string]> = [
    // IPv4 special ranges
    ['127.0.0.1', 'loopback'],
    ['127.255.255.254', 'loopback'],
    ['0.0.0.0', 'unspecified'],
    ['0.1.2.3', 'unspecified'],
    ['10.0.0.1', 'private'],
    ['10.255.255.255', 'private'],
    ['172.16.0.1', 'private'],
    ['172.31.255.255', 'private'],
    ['192.168.0.1', 'private'],
    ['192.168.255.255', 'private'],
    ['169.254.169.254', 'linkLocal'], // cloud metadata
    ['169.254.0.1', 'linkLocal'],
    ['100.64.0.1', 'carrierGradeNat'],
    ['100.127.255.255', 'carrierGradeNat'],
    ['255.255.255.255', 'broadcast'],
    ['224.0.0.1', 'multicast'],
    ['239.255.255.250', 'multicast'],
    ['192.0.0.8', 'reserved'], // IETF protocol assignments
    ['192.0.2.1', 'reserved'], // TEST-NET-1
    ['198.51.100.7', 'reserved'], // TEST-NET-2
    ['203.0.113.9', 'reserved'], // TEST-NET-3
    ['198.18.0.1', 'reserved'], // benchmarking
    ['198.19.255.255', 'reserved'],
    ['192.88.99.1', 'reserved'], // 6to4 relay anycast
    ['240.0.0.1', 'reserved'],
    ['192.175.48.1', 'as112'],
    // IPv6 special ranges
    ['::', 'unspecified'],
    ['::1', 'loopback'],
    ['0:0:0:0:0:0:0:1', 'loopback'],
    ['fe80::1', 'linkLocal'],
    ['fe80::1%eth0', 'linkLocal'],
    ['febf:ffff::1', 'linkLocal'],
    ['fc00::1', 'uniqueLocal'],
    ['fd12:3456:789a::1', 'uniqueLocal'],
    ['fd00:ec2::254', 'uniqueLocal'], // AWS IPv6 instance metadata
    ['ff02::1', 'multicast'],
    ['fec0::1', 'deprecatedSiteLocal'],
    ['100::1', 'discard'],
    ['2001:db8::1', 'reserved'], // documentation
    ['2001:2::1', 'benchmarking'],
    ['::ffff:0:7f00:1', 'rfc6145'],
    ['64:ff9b:1::a00:1', 'rfc6052'], // local-use NAT64 prefix
    // IPv4 inside IPv6: judged by the embedded address
    ['::ffff:127.0.0.1', 'ipv4Mapped>loopback'],
    ['::ffff:7f00:1', 'ipv4Mapped>loopback'],
    ['::FFFF:10.0.0.1', 'ipv4Mapped>private'],
    ['::ffff:169.254.169.254', 'ipv4Mapped>linkLocal'],
    ['::ffff:100.64.0.1', 'ipv4Mapped>carrierGradeNat'],
    ['::ffff:0.0.0.0', 'ipv4Mapped>unspecified'],
    ['::127.0.0.1', 'ipv4Compatible>loopback'], // ipaddr.js alone would misread this as mapped
    ['::7f00:1', 'ipv4Compatible>loopback'],
    ['::8.8.8.8', 'ipv4Compatible>unicast'], // deprecated form: refused whatever it embeds
    ['2002:7f00:1::', '6to4>loopback'],
    ['2002:a9fe:a9fe::1', '6to4>linkLocal'],
    ['2002:c0a8:101::1', '6to4>private'],
    ['2001:0:4136:e378:8000:63bf:3fff:fdd2', 'teredo>reserved'], // RFC 4380 example: client 192.0.2.45
    ['2001:0:a00:1::f5ff:fffe', 'teredo>private'], // server 10.0.0.1
    ['2001:0:808:808::80ff:fffe', 'teredo>loopback'], // client ~80ff:fffe = 127.0.0.1
    ['64:ff9b::7f00:1', 'nat64>loopback'],
    ['64:ff9b::10.1.2.3', 'nat64>private'],
    ['64:ff9b::a9fe:a9fe', 'nat64>linkLocal'],
    // not addresses as a socket reads them
    ['localhost', 'invalid'],
    ['', 'invalid'],
    ['1.2.3', 'invalid'],
    ['0x7f.0.0.1', 'invalid'],
    ['2130706433', 'invalid'],
    ['010.0.0.1', 'invalid'],
    ['[::1]', 'invalid'],
    ['1.2.3.4.5', 'invalid'],
  ];
  test.each(refused)('%s is refused as %s', (ip, range) => {
    expect(classifyAddress(ip)).toEqual({ forbidden: true, range });
    expect(isForbiddenAddress(ip)).toBe(true);
  });

  const allowed: Array<[string, string]> = [
    ['8.8.8.8', 'unicast'],
    ['1.1.1.1', 'unicast'],
    ['172.15.255.255', 'unicast'], // just below 172.16/12
    ['172.32.0.1', 'unicast'], // just above
    ['100.63.255.255', 'unicast'], // just below 100.64/10
    ['100.128.0.1', 'unicast'], // just above
    ['169.253.255.255', 'unicast'],
    ['11.0.0.1', 'unicast'],
    ['192.167.255.255', 'unicast'],
    ['223.255.255.255', 'unicast'],
    ['2606:4700:4700::1111', 'unicast'],
    ['2a00:1450:4001:80b::200e', 'unicast'],
    ['::ffff:8.8.8.8', 'ipv4Mapped>unicast'],
    ['::ffff:808:808', 'ipv4Mapped>unicast'],
    ['2002:808:808::1', '6to4>unicast'],
    ['2001:0:808:808::f7f7:f7f7', 'teredo>unicast'], // client 8.8.8.8
    ['64:ff9b::8.8.8.8', 'nat64>unicast'],
  ];
  test.each(allowed)('%s is allowed as %s', (ip, range) => {
    expect(classifyAddress(ip)).toEqual({ forbidden: false, range });
    expect(isForbiddenAddress(ip)).toBe(false);
  });
});

describe('the address policy', () => {
  const off = { allowPrivateNetworks: false };
  const on = { allowPrivateNetworks: true };

  test('with the switch off (the default) only public unicast passes', () => {
    expect(isAddressAllowed('8.8.8.8', off)).toBe(true);
    expect(isAddressAllowed('127.0.0.1', off)).toBe(false);
    expect(isAddressAllowed('::ffff:192.168.1.1', off)).toBe(false);
  });

  test('UPSCALE_ALLOW_PRIVATE_NETWORKS=true lets loopback and private addresses through', () => {
    expect(isAddressAllowed('127.0.0.1', on)).toBe(true);
    expect(isAddressAllowed('::1', on)).toBe(true);
    expect(isAddressAllowed('10.0.0.1', on)).toBe(true);
    expect(isAddressAllowed('169.254.169.254', on)).toBe(true);
  });

  test('the switch never makes a non-address acceptable', () => {
    expect(isAddressAllowed('localhost', on)).toBe(false);
    expect(isAddressAllowed('0x7f.0.0.1', on)).toBe(false);
  });

  test('an allow-list entry lets exactly that address through, in any spelling', () => {
    const pinned = { allowPrivateNetworks: false, allowAddresses: ['127.0.0.1', '::1'] };
    expect(isAddressAllowed('127.0.0.1', pinned)).toBe(true);
    expect(isAddressAllowed('0:0:0:0:0:0:0:1', pinned)).toBe(true);
    expect(isAddressAllowed('127.0.0.2', pinned)).toBe(false);
    expect(isAddressAllowed('::ffff:127.0.0.1', pinned)).toBe(false);
    expect(isAddressAllowed('10.0.0.1', pinned)).toBe(false);
  });
});

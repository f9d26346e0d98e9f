import { checkHttpsUrl } from './https-url';

describe('the outbound URL rules (docs/design.md §4: https only, no credentials)', () => {
  test('an https URL yields the host to connect to and whether it is a literal', () => {
    const check = checkHttpsUrl('https://Example.COM:8443/a/b.png?x=1#frag');
    expect(check.ok && { href: check.target.url.href, host: check.target.host, isLiteral: check.target.isLiteral }).toEqual({
      href: 'https://example.com:8443/a/b.png?x=1#frag',
      host: 'example.com',
      isLiteral: false,
    });
  });

  test.each([
    ['https://[::1]:8443/x', '::1'],
    ['https://127.0.0.1/x', '127.0.0.1'],
    ['https://0x7f000001/x', '127.0.0.1'], // the URL parser normalizes numeric hosts
    ['https://2130706433/x', '127.0.0.1'],
    ['https://[::ffff:10.0.0.1]/x', '::ffff:a00:1'],
  ])('%s is the literal %s', (raw, host) => {
    const check = checkHttpsUrl(raw);
    expect(check.ok && { host: check.target.host, isLiteral: check.target.isLiteral }).toEqual({ host, isLiteral: true });
  });

  test('a relative Location resolves against the URL that answered', () => {
    const check = checkHttpsUrl('../c.png?y=2', new URL('https://example.com/a/b/c'));
    expect(check.ok && check.target.url.href).toBe('https://example.com/a/c.png?y=2');
  });

  test.each([
    ['http://example.com/a.png', 'must use https, not http'],
    ['HTTP://example.com/a.png', 'must use https, not http'],
    ['ws://example.com/', 'must use https, not ws'],
    ['data:image/png;base64,AAAA', 'must use https, not data'],
    ['https://a:b@example.com/', 'must not carry credentials'],
    ['https://:b@example.com/', 'must not carry credentials'],
    ['//example.com/a.png', 'is not a valid URL'],
    ['https://', 'is not a valid URL'],
  ])('%s is refused: %s', (raw, reason) => {
    expect(checkHttpsUrl(raw)).toEqual({ ok: false, reason });
  });
});

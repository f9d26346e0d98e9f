import { MAX_WAIT_SECONDS, preferredWaitSeconds } from './prefer-wait';

describe('preferredWaitSeconds (RFC 7240 wait)', () => {
  it.each([
    ['wait=10', 10],
    ['wait=0', 0],
    ['WAIT=5', 5],
    [' wait = 7 ', 7],
    ['wait="12"', 12],
    ['respond-async, wait=20', 20],
    ['return=minimal; foo=bar, wait=3', 3],
    ['wait=600', MAX_WAIT_SECONDS],
  ])('%s -> %s', (header, seconds) => {
    expect(preferredWaitSeconds(header)).toBe(seconds);
  });

  it.each([[undefined], [''], ['respond-async'], ['wait'], ['wait=-1'], ['wait=1.5'], ['wait=soon'], ['wait=']])(
    '%s -> no wait',
    (header) => {
      expect(preferredWaitSeconds(header)).toBeUndefined();
    },
  );

  it('reads every Prefer header, the first wait winning', () => {
    expect(preferredWaitSeconds(['respond-async', 'wait=4', 'wait=9'])).toBe(4);
  });
});

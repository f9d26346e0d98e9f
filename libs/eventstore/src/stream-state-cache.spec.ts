import { StreamStateCache } from './stream-state-cache';

describe('StreamStateCache', () => {
  it('keeps the latest version of a stream and never goes back to an older one', () => {
    const c = new StreamStateCache<string>();
    c.set('s', 2, 'v2');
    c.set('s', 1, 'v1'); // a slower concurrent command
    expect(c.get('s')).toEqual({ version: 2, state: 'v2' });
    c.set('s', 3, 'v3');
    expect(c.get('s')).toEqual({ version: 3, state: 'v3' });
  });

  it('drops the least recently used stream past its size', () => {
    const c = new StreamStateCache<number>(2);
    c.set('a', 1, 1);
    c.set('b', 1, 1);
    c.get('a'); // a is now the most recent
    c.set('c', 1, 1);
    expect([c.get('a') !== undefined, c.get('b') !== undefined, c.get('c') !== undefined, c.size]).toEqual([true, false, true, 2]);
  });

  it('delete forgets a stream', () => {
    const c = new StreamStateCache<number>();
    c.set('a', 4, 4);
    c.delete('a');
    expect(c.get('a')).toBeUndefined();
  });
});

import { FakeTail } from '@upscaler/testing';
import { EntityCache } from './entity-cache';
import type { LogTail } from './log-tail';

function cache(max = 10) {
  const tail = new FakeTail();
  return { tail, c: new EntityCache<string>(tail as unknown as LogTail, 'apikey', max) };
}

describe('EntityCache: read models in memory, dropped when the log shows them changed', () => {
  it('keeps a loaded value and answers it while the tail is fresh', () => {
    const { tail, c } = cache();
    c.put('hash1', 'key_1', 'v1', 1, c.loadStart());
    expect(c.get('hash1')).toBe('v1');
    tail.fresh_ = false; // an append announced and not read yet, or no read for TRUST_MS
    expect(c.get('hash1')).toBeUndefined();
  });

  it('a change of the entity drops it, whatever it is looked up by', () => {
    const { tail, c } = cache();
    c.put('hash1', 'key_1', 'v1', 1, c.loadStart());
    c.put('hash2', 'key_2', 'v2', 1, c.loadStart());
    tail.change('apikey-key_1', 2);
    expect([c.get('hash1'), c.get('hash2')]).toEqual([undefined, 'v2']);
  });

  it('a load that raced a change (read before it, kept after the log showed it) is not kept', () => {
    const { tail, c } = cache();
    const start = c.loadStart();
    tail.change('apikey-key_1', 2); // e.g. the revocation, read from the log while the load was under way
    c.put('hash1', 'key_1', 'v1', 1, start); // the load read version 1
    expect(c.get('hash1')).toBeUndefined();
    c.put('hash1', 'key_1', 'v1 revoked', 2, c.loadStart()); // a load that read the change is kept
    expect(c.get('hash1')).toBe('v1 revoked');
  });

  it('nothing loaded before the log is followed is kept (changes before then are not seen)', () => {
    const { tail, c } = cache();
    tail.following_ = false;
    const start = c.loadStart();
    tail.following_ = true;
    c.put('hash1', 'key_1', 'v1', 1, start);
    expect(c.get('hash1')).toBeUndefined();
  });

  it('holds at most `max` values, the oldest dropped first', () => {
    const { c } = cache(2);
    for (const i of [1, 2, 3]) c.put(`hash${i}`, `key_${i}`, `v${i}`, 1, c.loadStart());
    expect([c.get('hash1'), c.get('hash2'), c.get('hash3')]).toEqual([undefined, 'v2', 'v3']);
  });
});

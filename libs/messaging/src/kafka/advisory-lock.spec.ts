import { lockKeys } from './advisory-lock';

describe('lockKeys', () => {
  it('maps a lock name to the fixed class key "upsc" and the FNV-1a hash of the name', () => {
    expect(lockKeys('upscaler.kafka-relay')).toEqual([0x75707363, lockKeys('upscaler.kafka-relay')[1]]);
    // FNV-1a 32-bit of "" is the offset basis; of "a" it is 0xe40c292c (as a signed int).
    expect(lockKeys('')).toEqual([0x75707363, 0x811c9dc5 | 0]);
    expect(lockKeys('a')).toEqual([0x75707363, 0xe40c292c | 0]);
  });

  it('gives different relays different locks', () => {
    expect(lockKeys('upscaler.kafka-relay')[1]).not.toBe(lockKeys('upscaler.other-relay')[1]);
  });
});

import type { ApiKeyState } from '../model/api-key.state';
import type { ReadModelRepository, ReadModelRow } from '@upscaler/projections';
import { FakeTail } from '@upscaler/testing';
import type { LogTail } from '@upscaler/http-api';
import { ApiKeyCache, UNKNOWN_MAX, UNKNOWN_TTL_MS, type ActiveKey } from './api-key-cache';

const KEY: ActiveKey = {
  keyId: 'key_1',
  accountId: 'acc_1',
  name: null,
  scopes: ['jobs:write'],
  prefix: 'usk_abcdefgh',
  hash: 'hash-active',
  rateLimitPerMinute: null,
  createdAt: '2026-11-26T00:00:00.000Z',
} as ActiveKey;

/** The apikey read model as rows by hash, counting the queries the cache lets through. */
function store(rows: Record<string, 'active' | 'revoked'>) {
  const queries: string[] = [];
  const repo = {
    byLookup: async (_category: string, hash: string) => {
      queries.push(hash);
      const status = rows[hash];
      return status ? ({ version: 1, state: { status, key: { ...KEY, hash } } } as unknown as ReadModelRow<ApiKeyState>) : null;
    },
  } as unknown as ReadModelRepository;
  return { queries, cache: new ApiKeyCache(repo, new FakeTail() as unknown as LogTail) };
}

describe('ApiKeyCache: a wrong key is looked up once, not on every request', () => {
  afterEach(() => jest.useRealTimers());

  it('an unknown or revoked hash answers null from memory after its first lookup', async () => {
    const { queries, cache } = store({ 'hash-revoked': 'revoked' });
    for (let i = 0; i < 3; i++) {
      expect(await cache.active('hash-unknown')).toBeNull();
      expect(await cache.active('hash-revoked')).toBeNull();
    }
    expect(queries).toEqual(['hash-unknown', 'hash-revoked']);
  });

  it('an active key is still found, and cached by the log-following cache', async () => {
    const { queries, cache } = store({ 'hash-active': 'active' });
    expect((await cache.active('hash-active'))?.keyId).toBe('key_1');
    expect((await cache.active('hash-active'))?.keyId).toBe('key_1');
    expect(queries).toEqual(['hash-active']);
  });

  it(`a remembered miss expires after ${UNKNOWN_TTL_MS / 1000} s and is asked again`, async () => {
    jest.useFakeTimers({ now: 1_000_000 });
    const { queries, cache } = store({});
    await cache.active('hash-unknown');
    jest.advanceTimersByTime(UNKNOWN_TTL_MS - 1);
    await cache.active('hash-unknown');
    expect(queries).toHaveLength(1);
    jest.advanceTimersByTime(2);
    await cache.active('hash-unknown');
    expect(queries).toHaveLength(2);
  });

  it(`remembers at most ${UNKNOWN_MAX} misses: a flood of distinct wrong keys drops the oldest`, async () => {
    const { queries, cache } = store({});
    for (let i = 0; i <= UNKNOWN_MAX; i++) await cache.active(`hash-${i}`);
    await cache.active(`hash-${UNKNOWN_MAX}`); // the newest is remembered
    expect(queries).toHaveLength(UNKNOWN_MAX + 1);
    await cache.active('hash-0'); // the oldest was dropped
    expect(queries).toHaveLength(UNKNOWN_MAX + 2);
  });
});

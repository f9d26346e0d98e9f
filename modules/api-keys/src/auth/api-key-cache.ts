import { Injectable } from '@nestjs/common';
import { LRUCache } from 'lru-cache';
import type { ApiKeyCreatedData } from '../model/api-key.events';
import type { ApiKeyState } from '../model/api-key.state';
import { ReadModelRepository } from '@upscaler/projections';
import { EntityCache, LogTail } from '@upscaler/http-api';

/** Hashes remembered as matching no active key: at most this many (least recently asked dropped first), ... */
export const UNKNOWN_MAX = 10_000;
/** ... each for this long. */
export const UNKNOWN_TTL_MS = 60_000;

/** An active key as the guard needs it. */
export type ActiveKey = ApiKeyCreatedData;

/**
 * Active API keys by hash, in memory, so that a request with a known key costs no query. A key's revocation is an
 * event of its stream: LogTail drops it from every replica's cache, at once on the replica that revoked it and
 * within LogTail's TRUST_MS (under a second) on the others (docs/api.md "Authentication and scopes").
 *
 * Hashes that matched no active key (unknown or revoked) are remembered too, for UNKNOWN_TTL_MS, so a client (or a
 * flood) repeating a wrong key costs no query each time. That cannot lock a new key out: a key's secret is made by
 * the server and shown only once its key exists (api-key-secret.ts), so nobody can send its hash before then, and a
 * revoked key never becomes active again. Malformed keys never get this far (bearerApiKey).
 */
@Injectable()
export class ApiKeyCache {
  private readonly cache: EntityCache<ActiveKey>;
  // Date.now as the clock (lru-cache takes performance.now by default): a wall-clock step only moves a 60 s expiry,
  // and tests can fake it.
  private readonly unknown = new LRUCache<string, true>({ max: UNKNOWN_MAX, ttl: UNKNOWN_TTL_MS, perf: { now: () => Date.now() } });

  constructor(
    private readonly readModels: ReadModelRepository,
    tail: LogTail,
  ) {
    this.cache = new EntityCache<ActiveKey>(tail, 'apikey', 50_000);
  }

  /** The active key with this hash if it is cached (and the cache is fresh); undefined: ask `active`. */
  cached(hash: string): ActiveKey | undefined {
    return this.cache.get(hash);
  }

  /** The active key with this hash, or null (unknown or revoked). */
  async active(hash: string): Promise<ActiveKey | null> {
    const hit = this.cache.get(hash);
    if (hit) return hit;
    if (this.unknown.has(hash)) return null;
    const start = this.cache.loadStart();
    const row = await this.readModels.byLookup<ApiKeyState>('apikey', hash);
    const key = row?.state.status === 'active' ? row.state.key : null;
    if (row && key) this.cache.put(hash, key.keyId, key, row.version, start);
    else this.unknown.set(hash, true);
    return key;
  }
}

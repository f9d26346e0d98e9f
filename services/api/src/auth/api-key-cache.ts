import { Injectable } from '@nestjs/common';
import type { ApiKeyCreatedData } from '@upscaler/contracts';
import type { ApiKeyState } from '@upscaler/domain';
import { ReadModelRepository } from '@upscaler/read-models';
import { EntityCache } from '../read-cache/entity-cache';
import { LogTail } from '../read-cache/log-tail';

/** An active key as the guard needs it. */
export type ActiveKey = ApiKeyCreatedData;

/**
 * Active API keys by hash, in memory, so that a request with a known key costs no query. A key's revocation is an
 * event of its stream: LogTail drops it from every replica's cache, at once on the replica that revoked it and
 * within LogTail's TRUST_MS (under a second) on the others (docs/api.md "Authentication and scopes"). Unknown,
 * malformed and revoked keys are not cached: they are looked up each time, as before.
 */
@Injectable()
export class ApiKeyCache {
  private readonly cache: EntityCache<ActiveKey>;

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
    const start = this.cache.loadStart();
    const row = await this.readModels.byLookup<ApiKeyState>('apikey', hash);
    const key = row?.state.status === 'active' ? row.state.key : null;
    if (row && key) this.cache.put(hash, key.keyId, key, row.version, start);
    return key;
  }
}

import type { Scope } from '@upscaler/contracts';

/**
 * Commands of an `apikey-…` stream. The full key (`usk_…`) never enters the log: the caller generates
 * it, shows it once, and passes only its prefix and SHA-256 here (docs/design.md §4, keys stored as hashes).
 */
export interface CreateApiKey {
  type: 'CreateApiKey';
  data: {
    keyId: string;
    accountId: string;
    name: string | null;
    scopes: Scope[];
    prefix: string;
    /** hex SHA-256 of the full key. */
    hash: string;
    rateLimitPerMinute: number | null;
    now: string;
  };
}

export interface RevokeApiKey {
  type: 'RevokeApiKey';
  data: { now: string };
}

export type ApiKeyCommand = CreateApiKey | RevokeApiKey;

import type { ApiKeyCreatedData } from './api-key.events';

/**
 * Commands of an `apikey-…` stream. The full key (`usk_…`) never enters the log: the caller generates
 * it, shows it once, and passes only its prefix and SHA-256 here (docs/design.md §4, keys stored as hashes).
 */
export interface CreateApiKey {
  type: 'CreateApiKey';
  /** ApiKeyCreated's data, with the command's instant for createdAt. */
  data: Omit<ApiKeyCreatedData, 'createdAt'> & { now: string };
}

export interface RevokeApiKey {
  type: 'RevokeApiKey';
  data: { now: string };
}

export type ApiKeyCommand = CreateApiKey | RevokeApiKey;

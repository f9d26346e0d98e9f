import type { Scope } from '@upscaler/contracts';

/** Events of an `apikey-…` stream, data v1. Only the SHA-256 of the key is ever stored. */
export interface ApiKeyCreatedData {
  keyId: string;
  accountId: string;
  name: string | null;
  scopes: Scope[];
  /** First characters of the key, shown in lists (`usk_ab12…`). */
  prefix: string;
  /** hex SHA-256 of the full key. */
  hash: string;
  rateLimitPerMinute: number | null;
  createdAt: string;
}
export interface ApiKeyRevokedData {
  keyId: string;
  accountId: string;
  revokedAt: string;
}
export type ApiKeyEvent = { type: 'ApiKeyCreated'; data: ApiKeyCreatedData } | { type: 'ApiKeyRevoked'; data: ApiKeyRevokedData };
export const API_KEY_EVENT_TYPES: readonly ApiKeyEvent['type'][] = ['ApiKeyCreated', 'ApiKeyRevoked'];

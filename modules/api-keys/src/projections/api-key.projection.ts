import { foldedBy, type ProjectionDef } from '@upscaler/projections';
import { apiKeyDecider } from '../model/api-key.decider';
import type { ApiKeyState } from '../model/api-key.state';

/**
 * An `apikey-…` stream's read model: its decider's state, found by the key's hash (`lookup`) when a request
 * authenticates (auth/api-key-cache.ts) and listed by account for GET /api_keys.
 */
export const apiKeyProjection: ProjectionDef<ApiKeyState> = {
  category: 'apikey',
  ...foldedBy(apiKeyDecider),
  columns: (s) => ({
    entityId: s.key!.keyId,
    accountId: s.key!.accountId,
    status: s.status,
    lookup: s.key!.hash,
    createdAt: s.key!.createdAt,
  }),
};

import type { ApiKeyCreatedData } from './api-key.events';

export interface ApiKeyState {
  status: 'none' | 'active' | 'revoked';
  key: ApiKeyCreatedData | null;
  revokedAt: string | null;
}

export function initialApiKeyState(): ApiKeyState {
  return { status: 'none', key: null, revokedAt: null };
}

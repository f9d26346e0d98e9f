import { DomainError, type Scope } from '@upscaler/contracts';
import type { ApiKeyState } from './api-key.state';

/** An API key as the API shows it (docs/api.md "API keys"). */
export interface ApiKeyView {
  id: string;
  object: 'api_key';
  name: string | null;
  scopes: Scope[];
  prefix: string;
  rate_limit_per_minute: number | null;
  created_at: string;
  revoked_at: string | null;
  /** Only in the creation answer. */
  key?: string;
}

/**
 * docs/design.md §6, API key object. `fullKey` is passed only when answering the creation request: the one
 * time the key is shown (spec 5, rule 2). The hash never leaves the service.
 */
export function toApiKeyView(state: ApiKeyState, fullKey?: string): ApiKeyView {
  const key = state.key;
  if (state.status === 'none' || key === null) throw new DomainError('not_found', 'No such API key.');
  const view: ApiKeyView = {
    id: key.keyId,
    object: 'api_key',
    name: key.name,
    scopes: [...key.scopes],
    prefix: key.prefix,
    rate_limit_per_minute: key.rateLimitPerMinute,
    created_at: key.createdAt,
    revoked_at: state.revokedAt,
  };
  if (fullKey !== undefined) view.key = fullKey;
  return view;
}

/** Spec 5, rule 3: a revoked key is refused with 401 like an unknown one. */
export function isApiKeyUsable(state: ApiKeyState): boolean {
  return state.status === 'active';
}

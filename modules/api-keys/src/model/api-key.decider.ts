import { DomainError, type Scope } from '@upscaler/contracts';
import { canonicalInstant, type Decider } from '@upscaler/domain';
import { API_KEY_EVENT_TYPES, type ApiKeyEvent } from './api-key.events';
import type { ApiKeyCommand, CreateApiKey, RevokeApiKey } from './api-key.commands';
import { initialApiKeyState, type ApiKeyState } from './api-key.state';
import { MAX_RATE_LIMIT_PER_MINUTE, MIN_RATE_LIMIT_PER_MINUTE, isScope } from './scopes';

/** API keys (spec 5; docs/design.md §4 and 6): created once, revocable; revoking twice changes nothing. */
export const apiKeyDecider: Decider<ApiKeyState, ApiKeyCommand, ApiKeyEvent> = {
  eventTypes: API_KEY_EVENT_TYPES,
  initialState: initialApiKeyState,
  decide,
  evolve,
};

export const API_KEY_PREFIX = 'usk_';

function decide(command: ApiKeyCommand, state: ApiKeyState): ApiKeyEvent[] {
  switch (command.type) {
    case 'CreateApiKey':
      return create(command, state);
    case 'RevokeApiKey':
      return revoke(command, state);
  }
}

function create({ data }: CreateApiKey, state: ApiKeyState): ApiKeyEvent[] {
  if (state.status !== 'none') throw new DomainError('conflict', `API key ${data.keyId} already exists.`);
  const unknown = data.scopes.filter((s) => !isScope(s));
  if (unknown.length > 0) throw new DomainError('invalid_request', `Unknown scopes: ${unknown.join(', ')}.`);
  const rate = data.rateLimitPerMinute;
  if (rate !== null && (!Number.isInteger(rate) || rate < MIN_RATE_LIMIT_PER_MINUTE || rate > MAX_RATE_LIMIT_PER_MINUTE)) {
    throw new DomainError(
      'invalid_request',
      `rate_limit_per_minute must be an integer from ${MIN_RATE_LIMIT_PER_MINUTE} to ${MAX_RATE_LIMIT_PER_MINUTE}.`,
    );
  }
  if (!data.prefix.startsWith(API_KEY_PREFIX)) throw new DomainError('invalid_request', `A key prefix starts with ${API_KEY_PREFIX}.`);
  if (!/^[0-9a-f]{64}$/.test(data.hash)) throw new DomainError('invalid_request', 'hash must be a hex SHA-256.');
  const scopes = [...new Set<Scope>(data.scopes)];
  return [
    {
      type: 'ApiKeyCreated',
      data: {
        keyId: data.keyId,
        accountId: data.accountId,
        name: data.name,
        scopes,
        prefix: data.prefix,
        hash: data.hash,
        rateLimitPerMinute: rate,
        createdAt: canonicalInstant(data.now),
      },
    },
  ];
}

function revoke({ data }: RevokeApiKey, state: ApiKeyState): ApiKeyEvent[] {
  if (state.status === 'none' || state.key === null) throw new DomainError('not_found', 'No such API key.');
  if (state.status === 'revoked') return [];
  return [
    {
      type: 'ApiKeyRevoked',
      data: { keyId: state.key.keyId, accountId: state.key.accountId, revokedAt: canonicalInstant(data.now) },
    },
  ];
}

function evolve(state: ApiKeyState, event: ApiKeyEvent): ApiKeyState {
  switch (event.type) {
    case 'ApiKeyCreated':
      return { status: 'active', key: event.data, revokedAt: null };
    case 'ApiKeyRevoked':
      return { ...state, status: 'revoked', revokedAt: event.data.revokedAt };
  }
}

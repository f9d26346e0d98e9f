import type { Scope } from '@upscaler/contracts';
import { DeciderSpecification, T0, at, foldEvents } from '@upscaler/domain';
import type { ApiKeyCreatedData, ApiKeyEvent } from './api-key.events';
import type { CreateApiKey } from './api-key.commands';
import { apiKeyDecider } from './api-key.decider';
import { isApiKeyUsable, toApiKeyView } from './api-key.views';
import { hasScope } from './scopes';

const spec = DeciderSpecification.for(apiKeyDecider);
const KEY = 'key_0190a1b2c3d47e8f9a0b1c2d3e4f5a6d';
const ACCT = 'acct_0190a1b2c3d47e8f9a0b1c2d3e4f5a6c';
const HASH = 'a'.repeat(64);

const createCommand = (overrides: Partial<CreateApiKey['data']> = {}): CreateApiKey => ({
  type: 'CreateApiKey',
  data: {
    keyId: KEY,
    accountId: ACCT,
    name: 'ci',
    scopes: ['jobs:read', 'jobs:write'],
    prefix: 'usk_ab12cd34',
    hash: HASH,
    rateLimitPerMinute: null,
    now: T0,
    ...overrides,
  },
});
const createdData: ApiKeyCreatedData = {
  keyId: KEY,
  accountId: ACCT,
  name: 'ci',
  scopes: ['jobs:read', 'jobs:write'],
  prefix: 'usk_ab12cd34',
  hash: HASH,
  rateLimitPerMinute: null,
  createdAt: T0,
};
const created: ApiKeyEvent = { type: 'ApiKeyCreated', data: createdData };
const revoked: ApiKeyEvent = { type: 'ApiKeyRevoked', data: { keyId: KEY, accountId: ACCT, revokedAt: at(60_000) } };

describe('api key decider (spec 5)', () => {
  it('CreateApiKey records the key by prefix and hash only', () => {
    spec.given([]).when(createCommand()).then([created]);
  });

  it('repeated scopes are kept once', () => {
    spec
      .given([])
      .when(createCommand({ scopes: ['jobs:read', 'jobs:read', 'keys:read'] }))
      .then([{ type: 'ApiKeyCreated', data: { ...createdData, scopes: ['jobs:read', 'keys:read'] } }]);
  });

  it('a paid-plan rate limit within 1..10,000 is kept', () => {
    spec
      .given([])
      .when(createCommand({ rateLimitPerMinute: 10_000 }))
      .then([{ type: 'ApiKeyCreated', data: { ...createdData, rateLimitPerMinute: 10_000 } }]);
  });

  it.each([0, 10_001, 2.5])('a rate limit of %p is invalid', (rate) => {
    spec
      .given([])
      .when(createCommand({ rateLimitPerMinute: rate }))
      .thenThrows('invalid_request');
  });

  it('an unknown scope is invalid', () => {
    spec
      .given([])
      .when(createCommand({ scopes: ['jobs:read', 'admin' as Scope] }))
      .thenThrows('invalid_request', 'Unknown scopes: admin.');
  });

  it('a prefix without usk_ or a hash that is not hex SHA-256 is invalid', () => {
    spec
      .given([])
      .when(createCommand({ prefix: 'sk_1234' }))
      .thenThrows('invalid_request');
    spec
      .given([])
      .when(createCommand({ hash: 'usk_the_full_key' }))
      .thenThrows('invalid_request');
  });

  it('creating an existing key is a conflict', () => {
    spec.given([created]).when(createCommand()).thenThrows('conflict');
  });

  it('RevokeApiKey revokes an active key', () => {
    spec
      .given([created])
      .when({ type: 'RevokeApiKey', data: { now: at(60_000) } })
      .then([revoked]);
  });

  it('revoking twice changes nothing', () => {
    spec
      .given([created, revoked])
      .when({ type: 'RevokeApiKey', data: { now: at(90_000) } })
      .thenNothing();
  });

  it('revoking a key that does not exist is not_found', () => {
    spec
      .given([])
      .when({ type: 'RevokeApiKey', data: { now: at(1) } })
      .thenThrows('not_found');
  });

  it('the view shows the key in full only when given (the creation answer), and revoked_at once revoked', () => {
    const active = foldEvents(apiKeyDecider, [created]);
    const base = {
      id: KEY,
      object: 'api_key',
      name: 'ci',
      scopes: ['jobs:read', 'jobs:write'],
      prefix: 'usk_ab12cd34',
      rate_limit_per_minute: null,
      created_at: T0,
      revoked_at: null,
    };
    expect(toApiKeyView(active, 'usk_ab12cd34_full')).toEqual({ ...base, key: 'usk_ab12cd34_full' });
    expect(toApiKeyView(active)).toEqual(base);
    const gone = foldEvents(apiKeyDecider, [created, revoked]);
    expect(toApiKeyView(gone)).toEqual({ ...base, revoked_at: at(60_000) });
    expect([isApiKeyUsable(active), isApiKeyUsable(gone)]).toEqual([true, false]);
  });
});

describe('scope checks (spec 5, rules 4-5)', () => {
  it.each<[Scope[], Scope, boolean]>([
    [['jobs:read', 'jobs:write'], 'jobs:write', true],
    [['jobs:read'], 'jobs:write', false],
    [['jobs:write'], 'jobs:read', false],
    [[], 'jobs:read', false],
    [['webhooks:read'], 'webhooks:write', false],
    [['keys:write'], 'keys:write', true],
  ])('scopes %j, required %s -> %s', (scopes, required, expected) => {
    expect(hasScope(scopes, required)).toBe(expected);
  });
});

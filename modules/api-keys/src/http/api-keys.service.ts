import { Inject, Injectable } from '@nestjs/common';
import { DomainError, isId, newId, streams } from '@upscaler/contracts';
import { CONFIG } from '@upscaler/runtime';
import { generateApiKey } from '../auth/api-key-secret';
import { parseWith } from '@upscaler/http-api';
import { CreateKeyBody } from './api-keys.schemas';
import type { AppConfig } from '@upscaler/config';
import { API_KEY_SETTINGS, type ApiKeySettings } from '../api-keys.config';
import { ReadModelRepository } from '@upscaler/projections';
import { ApiKeyCommandHandler } from '../api-key.command-handler';
import type { ApiKeyState } from '../model/api-key.state';
import { toApiKeyView, type ApiKeyView } from '../model/api-key.views';

/** API keys (docs/design.md §6): `apikey-…` streams; the key is shown once, only its hash is stored. */
@Injectable()
export class ApiKeysService {
  constructor(
    private readonly apiKeys: ApiKeyCommandHandler,
    @Inject(CONFIG) private readonly config: AppConfig,
    @Inject(API_KEY_SETTINGS) private readonly settings: ApiKeySettings,
    private readonly readModels: ReadModelRepository,
  ) {}

  /**
   * `creatorKeyId`: the self-service caller. Its key cannot make a stronger one (docs/design.md §4: scopes
   * limit what a key can do; spec 8: higher rates are a paid-plan matter, set by the operator): the
   * new key's scopes must be among the caller's, its rate limit at most the caller's, and unset it
   * inherits the caller's. The operator (no creator) may grant anything.
   */
  async create(accountId: string, body: unknown, creatorKeyId?: string): Promise<ApiKeyView> {
    const input = parseWith(CreateKeyBody, body ?? {});
    let rateLimitPerMinute = input.rate_limit_per_minute ?? null;
    if (creatorKeyId !== undefined) {
      const creator = (await this.readModels.byStream<ApiKeyState>(streams.apiKey(creatorKeyId)))?.state.key;
      if (!creator) throw new DomainError('unauthorized');
      const missing = input.scopes.filter((s) => !creator.scopes.includes(s));
      if (missing.length > 0) {
        throw new DomainError('forbidden', `This API key cannot grant scopes it does not have: ${[...new Set(missing)].join(', ')}.`);
      }
      const own = creator.rateLimitPerMinute ?? this.config.rateLimitPerMinute;
      if (rateLimitPerMinute !== null && rateLimitPerMinute > own) {
        throw new DomainError('forbidden', `This API key cannot grant a rate limit above its own (${own} per minute).`);
      }
      rateLimitPerMinute ??= creator.rateLimitPerMinute;
    }
    await this.assertRoomForAnotherKey(accountId);
    const keyId = newId('key');
    const secret = generateApiKey();
    const { newState } = await this.apiKeys.handle(keyId, {
      type: 'CreateApiKey',
      data: {
        keyId,
        accountId,
        name: input.name ?? null,
        scopes: [...new Set(input.scopes)],
        prefix: secret.prefix,
        hash: secret.hash,
        rateLimitPerMinute,
        now: this.apiKeys.now().toISOString(),
      },
    });
    return { ...toApiKeyView(newState), key: secret.key };
  }

  /**
   * docs/api.md "Limits": at most UPSCALE_MAX_API_KEYS_PER_ACCOUNT active keys (revoked ones do not count). Counted
   * from the read model, which the create of each key updates in its own transaction: creates racing each other
   * can pass the limit together, by at most the number of them.
   */
  private async assertRoomForAnotherKey(accountId: string): Promise<void> {
    const max = this.settings.maxKeysPerAccount;
    const active = (await this.readModels.all<ApiKeyState>('apikey', { accountId })).filter((r) => r.state.status === 'active').length;
    if (active >= max) {
      throw new DomainError(
        'api_key_limit_reached',
        `The account already has ${active} active API keys, the most it may have; revoke one first.`,
        {
          max,
        },
      );
    }
  }

  async list(accountId: string): Promise<{ object: 'list'; data: ApiKeyView[]; has_more: false; next_cursor: null }> {
    const rows = await this.readModels.all<ApiKeyState>('apikey', { accountId });
    return { object: 'list', data: rows.map((r) => toApiKeyView(r.state)), has_more: false, next_cursor: null };
  }

  /** `accountId` undefined: the operator may revoke any key. */
  async revoke(keyId: string, accountId: string | undefined): Promise<ApiKeyView> {
    if (!isId(keyId, 'key')) throw new DomainError('not_found', 'No API key with that id.');
    const row = await this.readModels.byStream<ApiKeyState>(streams.apiKey(keyId));
    if (!row || (accountId !== undefined && row.accountId !== accountId)) {
      throw new DomainError('not_found', 'No API key with that id.');
    }
    const { newState } = await this.apiKeys.handle(keyId, {
      type: 'RevokeApiKey',
      data: { now: this.apiKeys.now().toISOString() },
    });
    return toApiKeyView(newState);
  }
}

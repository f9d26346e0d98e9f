import { settingsProvider } from '@upscaler/runtime';
import { defineConfigSection, int } from '@upscaler/config';

/** The API keys' settings, read with the rest at start-up. */
export interface ApiKeySettings {
  /** Active (unrevoked) API keys an account may have (docs/api.md "Limits"). */
  maxKeysPerAccount: number;
}

export const apiKeysConfig = defineConfigSection(
  'api-keys',
  { UPSCALE_MAX_API_KEYS_PER_ACCOUNT: int(20, 1, 10_000) },
  (e): ApiKeySettings => ({ maxKeysPerAccount: e.UPSCALE_MAX_API_KEYS_PER_ACCOUNT }),
);

export const API_KEY_SETTINGS = Symbol('API_KEY_SETTINGS');

export const apiKeySettingsProvider = settingsProvider(API_KEY_SETTINGS, apiKeysConfig);

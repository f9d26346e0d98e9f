import { configSection, loadConfig } from '@upscaler/config';
import { apiKeysConfig } from './api-keys.config';

describe('API key settings', () => {
  it('caps API keys per account: 20 by default, at least 1 (docs/api.md "Limits")', () => {
    const read = (env: NodeJS.ProcessEnv) => configSection(loadConfig(env, [apiKeysConfig]), apiKeysConfig);
    expect(read({})).toEqual({ maxKeysPerAccount: 20 });
    expect(read({ UPSCALE_MAX_API_KEYS_PER_ACCOUNT: '5' })).toEqual({ maxKeysPerAccount: 5 });
    expect(() => read({ UPSCALE_MAX_API_KEYS_PER_ACCOUNT: '0' })).toThrow(
      /UPSCALE_MAX_API_KEYS_PER_ACCOUNT: must be an integer from 1 to 10000/,
    );
  });
});

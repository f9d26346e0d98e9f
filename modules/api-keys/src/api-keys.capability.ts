import type { Capability } from '@upscaler/runtime';
import { apiKeysConfig } from './api-keys.config';
import { apiKeyProjection } from './projections/api-key.projection';

/** The API-key streams' read model (rows in the shared `read_models` table, no table of their own) and their settings. */
export const apiKeysCapability: Capability = { name: 'api-keys', projections: [apiKeyProjection], config: [apiKeysConfig] };

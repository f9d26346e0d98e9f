import type { Capability } from '@upscaler/runtime';
import { apiKeyProjection } from './projections/api-key.projection';

/** The API-key streams' read model; their rows live in the shared `read_models` table (no table of their own). */
export const apiKeysCapability: Capability = { name: 'api-keys', projections: [apiKeyProjection] };

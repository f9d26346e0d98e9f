import type { OpenAPIRegistry } from '@asteasolutions/zod-to-openapi';
import {
  defineEndpoint,
  errorResponse,
  jsonBody,
  jsonBodyErrors,
  jsonResponse,
  registerEndpoints,
  type RateLimitHeaders,
} from '@upscaler/http-api';
import {
  ApiKeyCreatedSchema,
  ApiKeyListSchema,
  ApiKeyPathParams,
  ApiKeySchema,
  CREATE_KEY_EXAMPLES,
  CreateKeyBody,
} from './api-keys.schemas';

/** docs/design.md §6: self-service API keys (api-keys.controller.ts). */

export const KEY_CREATED = 'The key, with `key` in full: the only time it is shown. Store it now.';

/** docs/api.md "Limits": active keys per account (UPSCALE_MAX_API_KEYS_PER_ACCOUNT). */
export const keyLimitReached = (rateLimit: RateLimitHeaders) =>
  errorResponse(
    409,
    ['api_key_limit_reached'],
    rateLimit,
    'The account already has as many active (unrevoked) keys as UPSCALE_MAX_API_KEYS_PER_ACCOUNT allows (20 by default). Revoked keys do not count.',
  );

/** The self-service key endpoints (api-keys.controller.ts), each declared once. */
export const API_KEY_ENDPOINTS = {
  create: defineEndpoint({
    method: 'post',
    path: '/api/v1/api_keys',
    operationId: 'createApiKey',
    description:
      "Creates a key for the caller's account with the scopes asked for (at most the caller's own). The secret is in this answer only: store it now.",
    tags: ['Account'],
    summary: "Create an API key for the caller's account",
    request: { body: jsonBody(CreateKeyBody, CREATE_KEY_EXAMPLES) },
    responses: {
      '201': jsonResponse(KEY_CREATED, ApiKeyCreatedSchema, 'always'),
      '400': errorResponse(400, ['invalid_request'], 'always', 'The body does not match the schema (or is not JSON).'),
      '409': keyLimitReached('always'),
      ...jsonBodyErrors('always'),
    },
    auth: { scope: 'keys:write' },
  }),
  list: defineEndpoint({
    method: 'get',
    path: '/api/v1/api_keys',
    operationId: 'listApiKeys',
    description: "The account's API keys without their secrets: name, scopes, prefix, rate limit, when each was created and revoked.",
    tags: ['Account'],
    summary: "List the caller's API keys",
    responses: {
      '200': jsonResponse('Every key of the account, revoked ones included (has_more is always false).', ApiKeyListSchema, 'always'),
    },
    auth: { scope: 'keys:read' },
  }),
  revoke: defineEndpoint({
    method: 'delete',
    path: '/api/v1/api_keys/{id}',
    operationId: 'revokeApiKey',
    tags: ['Account'],
    summary: "Revoke one of the caller's API keys",
    description:
      'Revoking is final and idempotent: revoking a revoked key answers 200 with the same revoked_at. A revoked key gets 401 from then on.',
    request: { params: ApiKeyPathParams },
    responses: {
      '200': jsonResponse('The revoked key.', ApiKeySchema, 'always'),
      '404': errorResponse(404, ['not_found'], 'always', 'No key with that id in this account.'),
    },
    auth: { scope: 'keys:write' },
  }),
};

export function registerApiKeyRoutes(registry: OpenAPIRegistry): void {
  registerEndpoints(registry, Object.values(API_KEY_ENDPOINTS));
}

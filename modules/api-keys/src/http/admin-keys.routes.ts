import type { OpenAPIRegistry } from '@asteasolutions/zod-to-openapi';
import { defineEndpoint, errorResponse, idParam, jsonBody, jsonBodyErrors, jsonResponse, registerEndpoints, z } from '@upscaler/http-api';
import { KEY_CREATED, keyLimitReached } from './api-keys.routes';
import { ApiKeyCreatedSchema, ApiKeyPathParams, ApiKeySchema, CREATE_KEY_EXAMPLES, CreateKeyBody } from './api-keys.schemas';

const AccountPathParams = z.object({ id: idParam('acct', 'Account', 'acct_0190a1b2c3d47e8f9a0b1c2d3e4f5a6c') });

/** docs/design.md §6: the operator's key endpoints (admin-keys.controller.ts), bearer UPSCALE_OPERATOR_TOKEN. */
export const ADMIN_KEY_ENDPOINTS = {
  create: defineEndpoint({
    method: 'post',
    path: '/api/v1/admin/accounts/{id}/keys',
    operationId: 'adminCreateApiKey',
    description: 'Creates an API key for any account (operator token), e.g. its first one. The secret is in this answer only.',
    summary: 'Create an API key for an account',
    tags: ['Operator'],
    request: { params: AccountPathParams, body: jsonBody(CreateKeyBody, CREATE_KEY_EXAMPLES) },
    responses: {
      '201': jsonResponse(KEY_CREATED, ApiKeyCreatedSchema, 'never'),
      '400': errorResponse(400, ['invalid_request'], 'never'),
      '404': errorResponse(404, ['not_found'], 'never', 'No account with that id (checked before the body).'),
      '409': keyLimitReached('never'),
      ...jsonBodyErrors('never'),
    },
    auth: 'operator',
  }),
  revoke: defineEndpoint({
    method: 'delete',
    path: '/api/v1/admin/keys/{id}',
    operationId: 'adminRevokeApiKey',
    description: 'Revokes any API key (operator token); the api refuses it from then on, across replicas within about a second.',
    summary: 'Revoke any API key',
    tags: ['Operator'],
    request: { params: ApiKeyPathParams },
    responses: {
      '200': jsonResponse('The revoked key (idempotent).', ApiKeySchema, 'never'),
      '404': errorResponse(404, ['not_found'], 'never', 'No key with that id.'),
    },
    auth: 'operator',
  }),
};

export function registerAdminKeyRoutes(registry: OpenAPIRegistry): void {
  registerEndpoints(registry, Object.values(ADMIN_KEY_ENDPOINTS));
}

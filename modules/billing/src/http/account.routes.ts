import type { OpenAPIRegistry } from '@asteasolutions/zod-to-openapi';
import { defineEndpoint, errorResponse, jsonResponse, registerEndpoints } from '@upscaler/http-api';
import { AccountSchema } from './accounts.schemas';

/** docs/design.md §6: GET /account (account.controller.ts). */
export const ACCOUNT_ENDPOINTS = {
  getAccount: defineEndpoint({
    method: 'get',
    path: '/api/v1/account',
    operationId: 'getAccount',
    tags: ['Account'],
    summary: "The caller's account and credits",
    description: 'Any valid key, whatever its scopes.',
    responses: {
      '200': jsonResponse('The account of the calling key.', AccountSchema, 'always'),
      '404': errorResponse(404, ['not_found'], 'always', "The key's account does not exist."),
    },
    auth: 'key',
  }),
};

export function registerAccountRoutes(registry: OpenAPIRegistry): void {
  registerEndpoints(registry, Object.values(ACCOUNT_ENDPOINTS));
}

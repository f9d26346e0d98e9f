import type { OpenAPIRegistry } from '@asteasolutions/zod-to-openapi';
import { apiKeySecurity, errorResponse, jsonResponse, keyedErrors } from '@upscaler/http-api';
import { AccountSchema } from './accounts.schemas';

/** docs/design.md §6: GET /account (account.controller.ts). */
export function registerAccountRoutes(registry: OpenAPIRegistry): void {
  registry.registerPath({
    method: 'get',
    path: '/api/v1/account',
    operationId: 'getAccount',
    tags: ['Account'],
    summary: "The caller's account and credits",
    description: 'Any valid key, whatever its scopes.',
    security: apiKeySecurity(),
    responses: {
      '200': jsonResponse('The account of the calling key.', AccountSchema, 'always'),
      '404': errorResponse(404, ['not_found'], 'always', "The key's account does not exist."),
      ...keyedErrors({ scoped: false }),
    },
  });
}

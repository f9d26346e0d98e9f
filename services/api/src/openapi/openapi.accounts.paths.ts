import { SCOPES } from '@upscaler/contracts';
import {
  apiKeySecurity,
  errorResponse,
  jsonBodyErrors,
  jsonResponse,
  keyedErrors,
  operatorErrors,
  operatorSecurity,
  paramRef,
  ref,
  type Json,
} from './openapi.common';

/** The operator's account writes go to billing, the owner of account streams (docs/design.md §2). */
const billingUnavailable = errorResponse(
  503,
  ['billing_unavailable'],
  'never',
  'Billing (the owner of account streams) did not answer in time. The change may still be applied later: read the account before retrying a grant.',
);

/** docs/design.md §6: account self-service (account.controller.ts, api-keys.controller.ts) and the operator API (admin.controller.ts). */

const createKeyBody: Json = {
  required: true,
  content: {
    'application/json': {
      schema: {
        type: 'object',
        required: ['scopes'],
        properties: {
          name: { type: 'string', minLength: 1, maxLength: 200, description: 'A label (trimmed).' },
          scopes: { type: 'array', minItems: 1, items: { type: 'string', enum: [...SCOPES] }, description: 'Duplicates are dropped.' },
          rate_limit_per_minute: {
            type: 'integer',
            minimum: 1,
            maximum: 10000,
            description: "This key's own rate (paid plans). Omitted: the default (UPSCALE_RATE_LIMIT_PER_MINUTE, 60).",
          },
        },
      },
      examples: { worker: { value: { name: 'worker', scopes: ['jobs:read', 'jobs:write'] } } },
    },
  },
};

const keyCreated = 'The key, with `key` in full: the only time it is shown. Store it now.';

/** docs/api.md "Limits": active keys per account (UPSCALE_MAX_API_KEYS_PER_ACCOUNT). */
const keyLimitReached = (rateLimit: 'always' | 'never'): Json =>
  errorResponse(
    409,
    ['api_key_limit_reached'],
    rateLimit,
    'The account already has as many active (unrevoked) keys as UPSCALE_MAX_API_KEYS_PER_ACCOUNT allows (20 by default). Revoked keys do not count.',
  );

export const accountPaths: Record<string, Json> = {
  '/api/v1/account': {
    get: {
      operationId: 'getAccount',
      tags: ['Account'],
      summary: "The caller's account and credits",
      description: 'Any valid key, whatever its scopes.',
      security: apiKeySecurity(),
      responses: {
        '200': jsonResponse('The account of the calling key.', ref('Account'), 'always'),
        '404': errorResponse(404, ['not_found'], 'always', "The key's account does not exist."),
        ...keyedErrors({ scoped: false }),
      },
    },
  },
  '/api/v1/api_keys': {
    post: {
      operationId: 'createApiKey',
      tags: ['Account'],
      summary: "Create an API key for the caller's account",
      security: apiKeySecurity('keys:write'),
      requestBody: createKeyBody,
      responses: {
        '201': jsonResponse(keyCreated, ref('ApiKeyCreated'), 'always'),
        '400': errorResponse(400, ['invalid_request'], 'always', 'The body does not match the schema (or is not JSON).'),
        '409': keyLimitReached('always'),
        ...jsonBodyErrors('always'),
        ...keyedErrors({ scoped: true }),
      },
    },
    get: {
      operationId: 'listApiKeys',
      tags: ['Account'],
      summary: "List the caller's API keys",
      security: apiKeySecurity('keys:read'),
      responses: {
        '200': jsonResponse('Every key of the account, revoked ones included (has_more is always false).', ref('ApiKeyList'), 'always'),
        ...keyedErrors({ scoped: true }),
      },
    },
  },
  '/api/v1/api_keys/{id}': {
    parameters: [paramRef('ApiKeyId')],
    delete: {
      operationId: 'revokeApiKey',
      tags: ['Account'],
      summary: "Revoke one of the caller's API keys",
      description:
        'Revoking is final and idempotent: revoking a revoked key answers 200 with the same revoked_at. A revoked key gets 401 from then on.',
      security: apiKeySecurity('keys:write'),
      responses: {
        '200': jsonResponse('The revoked key.', ref('ApiKey'), 'always'),
        '404': errorResponse(404, ['not_found'], 'always', 'No key with that id in this account.'),
        ...keyedErrors({ scoped: true }),
      },
    },
  },
  '/api/v1/admin/accounts': {
    post: {
      operationId: 'adminCreateAccount',
      tags: ['Operator'],
      summary: 'Open an account',
      security: operatorSecurity,
      requestBody: {
        required: true,
        content: {
          'application/json': {
            schema: {
              type: 'object',
              required: ['name'],
              properties: {
                name: { type: 'string', minLength: 1, maxLength: 200, description: 'Trimmed; not blank.' },
                credits: { type: 'integer', minimum: 0, maximum: 1000000000, default: 0, description: 'Credits granted at opening.' },
              },
            },
          },
        },
      },
      responses: {
        '201': jsonResponse('The new account.', ref('AdminAccount'), 'never'),
        '400': errorResponse(400, ['invalid_request'], 'never'),
        ...jsonBodyErrors('never'),
        '503': billingUnavailable,
        ...operatorErrors(),
      },
    },
  },
  '/api/v1/admin/accounts/{id}': {
    parameters: [paramRef('AccountId')],
    get: {
      operationId: 'adminGetAccount',
      tags: ['Operator'],
      summary: 'Retrieve an account',
      security: operatorSecurity,
      responses: {
        '200': jsonResponse('The account.', ref('AdminAccount'), 'never'),
        '404': errorResponse(404, ['not_found'], 'never', 'No account with that id.'),
        ...operatorErrors(),
      },
    },
    patch: {
      operationId: 'adminUpdateAccount',
      tags: ['Operator'],
      summary: "Change an account's settings",
      description:
        'Sets the per-account limit on jobs running at once (enforced across all processors by the work queue). Takes effect for the next claim; running jobs are not stopped.',
      security: operatorSecurity,
      requestBody: {
        required: true,
        content: {
          'application/json': {
            schema: {
              type: 'object',
              required: ['max_concurrent_jobs'],
              properties: {
                max_concurrent_jobs: { type: ['integer', 'null'], minimum: 1, maximum: 1000, description: 'null: the service default.' },
              },
            },
          },
        },
      },
      responses: {
        '200': jsonResponse('The account, updated.', ref('AdminAccount'), 'never'),
        '400': errorResponse(400, ['invalid_request'], 'never'),
        '404': errorResponse(404, ['not_found'], 'never', 'No account with that id.'),
        ...jsonBodyErrors('never'),
        '503': billingUnavailable,
        ...operatorErrors(),
      },
    },
  },
  '/api/v1/admin/accounts/{id}/credits': {
    parameters: [paramRef('AccountId')],
    post: {
      operationId: 'adminGrantCredits',
      tags: ['Operator'],
      summary: 'Grant credits to an account',
      security: operatorSecurity,
      requestBody: {
        required: true,
        content: {
          'application/json': {
            schema: {
              type: 'object',
              required: ['amount'],
              properties: { amount: { type: 'integer', minimum: 1, maximum: 1000000000 } },
            },
          },
        },
      },
      responses: {
        '200': jsonResponse('The account, credits granted (balance raised by amount).', ref('AdminAccount'), 'never'),
        '400': errorResponse(
          400,
          ['invalid_request'],
          'never',
          'The body is checked before the account: a bad body answers 400 even for an unknown account.',
        ),
        '404': errorResponse(404, ['not_found'], 'never', 'No account with that id.'),
        ...jsonBodyErrors('never'),
        '503': billingUnavailable,
        ...operatorErrors(),
      },
    },
  },
  '/api/v1/admin/accounts/{id}/keys': {
    parameters: [paramRef('AccountId')],
    post: {
      operationId: 'adminCreateApiKey',
      tags: ['Operator'],
      summary: 'Create an API key for an account',
      security: operatorSecurity,
      requestBody: createKeyBody,
      responses: {
        '201': jsonResponse(keyCreated, ref('ApiKeyCreated'), 'never'),
        '400': errorResponse(400, ['invalid_request'], 'never'),
        '404': errorResponse(404, ['not_found'], 'never', 'No account with that id (checked before the body).'),
        '409': keyLimitReached('never'),
        ...jsonBodyErrors('never'),
        ...operatorErrors(),
      },
    },
  },
  '/api/v1/admin/keys/{id}': {
    parameters: [paramRef('ApiKeyId')],
    delete: {
      operationId: 'adminRevokeApiKey',
      tags: ['Operator'],
      summary: 'Revoke any API key',
      security: operatorSecurity,
      responses: {
        '200': jsonResponse('The revoked key (idempotent).', ref('ApiKey'), 'never'),
        '404': errorResponse(404, ['not_found'], 'never', 'No key with that id.'),
        ...operatorErrors(),
      },
    },
  },
};

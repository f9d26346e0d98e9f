import type { OpenAPIRegistry } from '@asteasolutions/zod-to-openapi';
import {
  ApiKeyCreatedSchema,
  ApiKeyPathParams,
  ApiKeySchema,
  CREATE_KEY_EXAMPLES,
  CreateKeyBody,
  KEY_CREATED,
  keyLimitReached,
} from '@upscaler/api-keys';
import {
  DEPENDENCY_AWAY,
  errorResponse,
  jsonBody,
  jsonBodyErrors,
  jsonResponse,
  operatorErrors,
  operatorSecurity,
} from '@upscaler/http-api';
import {
  AccountPathParams,
  AdminAccountSchema,
  CreateAccountBody,
  FileDeletionSchema,
  GrantCreditsBody,
  UpdateAccountBody,
} from './accounts.schemas';

/** docs/design.md §6: the operator API (admin.controller.ts), bearer UPSCALE_OPERATOR_TOKEN. */

/** The operator's account writes go to billing, the owner of account streams (docs/design.md §2). */
const billingUnavailable = () =>
  errorResponse(
    503,
    ['billing_unavailable', 'service_unavailable'],
    'never',
    `billing_unavailable: billing (the owner of account streams) did not answer in time; the change may still be applied later: read the account before retrying a grant. service_unavailable: ${DEPENDENCY_AWAY}`,
  );
const noAccount = () => errorResponse(404, ['not_found'], 'never', 'No account with that id.');
/** What a change to an existing account can answer besides its own 400: no such account, a bad JSON body, no operator
 * token, billing not answering. */
const accountUpdateErrors = () => ({
  '404': noAccount(),
  ...jsonBodyErrors('never'),
  ...operatorErrors(),
  '503': billingUnavailable(),
});

export function registerAdminRoutes(registry: OpenAPIRegistry): void {
  const operator = { tags: ['Operator'], security: operatorSecurity };

  registry.registerPath({
    method: 'post',
    path: '/api/v1/admin/accounts',
    operationId: 'adminCreateAccount',
    description:
      'Opens an account with a name and an initial grant of credits (operator token). Billing, the owner of account streams, applies it.',
    summary: 'Open an account',
    ...operator,
    request: { body: jsonBody(CreateAccountBody) },
    responses: {
      '201': jsonResponse('The new account.', AdminAccountSchema, 'never'),
      '400': errorResponse(400, ['invalid_request'], 'never'),
      ...jsonBodyErrors('never'),
      ...operatorErrors(),
      '503': billingUnavailable(),
    },
  });

  registry.registerPath({
    method: 'get',
    path: '/api/v1/admin/accounts/{id}',
    operationId: 'adminGetAccount',
    description: "An account's balance, reserved and charged credits and limits, as billing's projection holds them (operator token).",
    summary: 'Retrieve an account',
    ...operator,
    request: { params: AccountPathParams },
    responses: {
      '200': jsonResponse('The account.', AdminAccountSchema, 'never'),
      '404': noAccount(),
      ...operatorErrors(),
    },
  });

  registry.registerPath({
    method: 'patch',
    path: '/api/v1/admin/accounts/{id}',
    operationId: 'adminUpdateAccount',
    summary: "Change an account's settings",
    description:
      'Sets the per-account limit on jobs running at once (enforced across all processors by the work queue). Takes effect for the next claim; running jobs are not stopped.',
    ...operator,
    request: { params: AccountPathParams, body: jsonBody(UpdateAccountBody) },
    responses: {
      '200': jsonResponse('The account, updated.', AdminAccountSchema, 'never'),
      '400': errorResponse(400, ['invalid_request'], 'never'),
      ...accountUpdateErrors(),
    },
  });

  registry.registerPath({
    method: 'post',
    path: '/api/v1/admin/accounts/{id}/credits',
    operationId: 'adminGrantCredits',
    description: "Adds credits to an account's balance (operator token). Not idempotent: read the account before retrying after a 503.",
    summary: 'Grant credits to an account',
    ...operator,
    request: { params: AccountPathParams, body: jsonBody(GrantCreditsBody) },
    responses: {
      '200': jsonResponse('The account, credits granted (balance raised by amount).', AdminAccountSchema, 'never'),
      '400': errorResponse(
        400,
        ['invalid_request'],
        'never',
        'The body is checked before the account: a bad body answers 400 even for an unknown account.',
      ),
      ...accountUpdateErrors(),
    },
  });

  registry.registerPath({
    method: 'post',
    path: '/api/v1/admin/accounts/{id}/delete_files',
    operationId: 'adminDeleteAccountFiles',
    description:
      'Deletes the source and result of every final job of the account now, in the storage the service runs on (operator token): a deletion request honoured. The jobs stay listed, with files_expire_at set to now; their results answer 410 files_expired. Jobs not final yet keep their files (counted in jobs_unfinished): cancel them, or call again once they finish. Safe to repeat.',
    summary: "Delete an account's files",
    ...operator,
    request: { params: AccountPathParams },
    responses: {
      '200': jsonResponse('What was deleted.', FileDeletionSchema, 'never'),
      '404': noAccount(),
      ...operatorErrors(),
    },
  });

  registry.registerPath({
    method: 'post',
    path: '/api/v1/admin/accounts/{id}/keys',
    operationId: 'adminCreateApiKey',
    description: 'Creates an API key for any account (operator token), e.g. its first one. The secret is in this answer only.',
    summary: 'Create an API key for an account',
    ...operator,
    request: { params: AccountPathParams, body: jsonBody(CreateKeyBody, CREATE_KEY_EXAMPLES) },
    responses: {
      '201': jsonResponse(KEY_CREATED, ApiKeyCreatedSchema, 'never'),
      '400': errorResponse(400, ['invalid_request'], 'never'),
      '404': errorResponse(404, ['not_found'], 'never', 'No account with that id (checked before the body).'),
      '409': keyLimitReached('never'),
      ...jsonBodyErrors('never'),
      ...operatorErrors(),
    },
  });

  registry.registerPath({
    method: 'delete',
    path: '/api/v1/admin/keys/{id}',
    operationId: 'adminRevokeApiKey',
    description: 'Revokes any API key (operator token); the api refuses it from then on, across replicas within about a second.',
    summary: 'Revoke any API key',
    ...operator,
    request: { params: ApiKeyPathParams },
    responses: {
      '200': jsonResponse('The revoked key (idempotent).', ApiKeySchema, 'never'),
      '404': errorResponse(404, ['not_found'], 'never', 'No key with that id.'),
      ...operatorErrors(),
    },
  });
}

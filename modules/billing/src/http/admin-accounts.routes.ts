import type { OpenAPIRegistry } from '@asteasolutions/zod-to-openapi';
import {
  defineEndpoint,
  DEPENDENCY_AWAY,
  errorResponse,
  jsonBody,
  jsonBodyErrors,
  jsonResponse,
  registerEndpoints,
} from '@upscaler/http-api';
import { AccountPathParams, AdminAccountSchema, CreateAccountBody, GrantCreditsBody, UpdateAccountBody } from './accounts.schemas';

/** docs/design.md §6: the operator's account endpoints (admin-accounts.controller.ts), bearer UPSCALE_OPERATOR_TOKEN. */

/** The operator's account writes go to billing, the owner of account streams (docs/design.md §2). */
const billingUnavailable = () =>
  errorResponse(
    503,
    ['billing_unavailable', 'service_unavailable'],
    'never',
    `billing_unavailable: billing (the owner of account streams) did not answer in time; the change may still be applied later: read the account before retrying a grant. service_unavailable: ${DEPENDENCY_AWAY}`,
  );
export const noAccount = () => errorResponse(404, ['not_found'], 'never', 'No account with that id.');
/** What a change to an existing account can answer besides its own 400 (and what the operator token implies): no
 * such account, a bad JSON body, billing not answering. */
const accountUpdateErrors = () => ({
  '404': noAccount(),
  ...jsonBodyErrors('never'),
  '503': billingUnavailable(),
});

export const ADMIN_ACCOUNT_ENDPOINTS = {
  adminCreateAccount: defineEndpoint({
    method: 'post',
    path: '/api/v1/admin/accounts',
    operationId: 'adminCreateAccount',
    description:
      'Opens an account with a name and an initial grant of credits (operator token). Billing, the owner of account streams, applies it.',
    summary: 'Open an account',
    tags: ['Operator'],
    request: { body: jsonBody(CreateAccountBody) },
    responses: {
      '201': jsonResponse('The new account.', AdminAccountSchema, 'never'),
      '400': errorResponse(400, ['invalid_request'], 'never'),
      ...jsonBodyErrors('never'),
      '503': billingUnavailable(),
    },
    auth: 'operator',
  }),
  adminGetAccount: defineEndpoint({
    method: 'get',
    path: '/api/v1/admin/accounts/{id}',
    operationId: 'adminGetAccount',
    description: "An account's balance, reserved and charged credits and limits, as billing's projection holds them (operator token).",
    summary: 'Retrieve an account',
    tags: ['Operator'],
    request: { params: AccountPathParams },
    responses: {
      '200': jsonResponse('The account.', AdminAccountSchema, 'never'),
      '404': noAccount(),
    },
    auth: 'operator',
  }),
  adminUpdateAccount: defineEndpoint({
    method: 'patch',
    path: '/api/v1/admin/accounts/{id}',
    operationId: 'adminUpdateAccount',
    summary: "Change an account's settings",
    description:
      'Sets the per-account limit on jobs running at once (enforced across all processors by the work queue). Takes effect for the next claim; running jobs are not stopped.',
    tags: ['Operator'],
    request: { params: AccountPathParams, body: jsonBody(UpdateAccountBody) },
    responses: {
      '200': jsonResponse('The account, updated.', AdminAccountSchema, 'never'),
      '400': errorResponse(400, ['invalid_request'], 'never'),
      ...accountUpdateErrors(),
    },
    auth: 'operator',
  }),
  adminGrantCredits: defineEndpoint({
    method: 'post',
    path: '/api/v1/admin/accounts/{id}/credits',
    operationId: 'adminGrantCredits',
    description: "Adds credits to an account's balance (operator token). Not idempotent: read the account before retrying after a 503.",
    summary: 'Grant credits to an account',
    tags: ['Operator'],
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
    auth: 'operator',
  }),
};

export function registerAdminAccountRoutes(registry: OpenAPIRegistry): void {
  registerEndpoints(registry, Object.values(ADMIN_ACCOUNT_ENDPOINTS));
}

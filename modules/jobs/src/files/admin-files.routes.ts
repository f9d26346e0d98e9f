import type { OpenAPIRegistry } from '@asteasolutions/zod-to-openapi';
import { AccountPathParams, noAccount } from '@upscaler/billing';
import { FileDeletionSchema } from './file-deletion.schema';
import { jsonResponse, defineEndpoint, registerEndpoints } from '@upscaler/http-api';

/** docs/design.md §6: the operator's file deletion (admin-files.controller.ts), bearer UPSCALE_OPERATOR_TOKEN. */
export const ADMIN_FILE_ENDPOINTS = {
  adminDeleteAccountFiles: defineEndpoint({
    method: 'post',
    path: '/api/v1/admin/accounts/{id}/delete_files',
    operationId: 'adminDeleteAccountFiles',
    description:
      'Deletes the source and result of every final job of the account now, in the storage the service runs on (operator token): a deletion request honoured. The jobs stay listed, with files_expire_at set to now; their results answer 410 files_expired. Jobs not final yet keep their files (counted in jobs_unfinished): cancel them, or call again once they finish. Safe to repeat.',
    summary: "Delete an account's files",
    tags: ['Operator'],
    request: { params: AccountPathParams },
    responses: {
      '200': jsonResponse('What was deleted.', FileDeletionSchema, 'never'),
      '404': noAccount(),
    },
    auth: 'operator',
  }),
};

export function registerAdminFileRoutes(registry: OpenAPIRegistry): void {
  registerEndpoints(registry, Object.values(ADMIN_FILE_ENDPOINTS));
}

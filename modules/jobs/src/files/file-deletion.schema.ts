import { id, nonNegative, z } from '@upscaler/http-api';

export const FileDeletionSchema = z
  .object({
    object: z.literal('file_deletion'),
    account_id: id('acct', 'Account'),
    jobs_deleted: nonNegative('Final jobs whose source and result this call deleted.'),
    jobs_already_deleted: nonNegative('Final jobs whose files were deleted before (retention, or an earlier call).'),
    jobs_unfinished: nonNegative('Jobs not final yet: their files were kept. Cancel them, or call again once they finish.'),
  })
  .openapi('FileDeletion', { description: 'What POST /admin/accounts/{id}/delete_files did (docs/operations.md, Retention).' });
export type FileDeletionView = z.output<typeof FileDeletionSchema>;

import { Injectable } from '@nestjs/common';
import { isFinalStatus } from '@upscaler/contracts';
import type { JobState } from '../model/job.state';
import { ReadModelRepository } from '@upscaler/projections';
import { JobFiles } from './job-files';
import { AccountsService } from '@upscaler/billing';
import { type FileDeletionView } from './file-deletion.schema';

const PAGE = 500;

/**
 * POST /admin/accounts/{id}/delete_files (docs/operations.md "Retention"): an operator honours a deletion request by
 * deleting the source and result of every final job of the account now, in whichever storage backend runs. Jobs not
 * yet final keep theirs (cancel them first, or call again once they finish); the jobs themselves stay listed.
 */
@Injectable()
export class AccountFilesService {
  constructor(
    private readonly accounts: AccountsService,
    private readonly readModels: ReadModelRepository,
    private readonly files: JobFiles,
  ) {}

  async deleteAll(accountId: string): Promise<FileDeletionView> {
    await this.accounts.load(accountId);
    const counts = { jobs_deleted: 0, jobs_already_deleted: 0, jobs_unfinished: 0 };
    let startingAfter: string | undefined;
    for (;;) {
      const page = await this.readModels.page<JobState>('job', { accountId, limit: PAGE, startingAfter });
      for (const { state } of page.items) {
        if (state.status === 'none' || !isFinalStatus(state.status)) counts.jobs_unfinished++;
        else if (await this.files.delete(state, 'operator', 'api')) counts.jobs_deleted++;
        else counts.jobs_already_deleted++;
      }
      if (!page.hasMore || page.items.length === 0) break;
      startingAfter = page.items[page.items.length - 1].entityId;
    }
    return { object: 'file_deletion', account_id: accountId, ...counts };
  }
}

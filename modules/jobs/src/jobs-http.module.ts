import { Module } from '@nestjs/common';
import { billingSettingsProvider } from '@upscaler/billing';
import { ApiKeysModule } from '@upscaler/api-keys';
import { HttpApiModule } from '@upscaler/http-api';
import { AccountFilesService } from './files/account-files.service';
import { AdminFilesController } from './files/admin-files.controller';
import { FilesController } from './files/files.controller';
import { JobFiles } from './files/job-files';
import { IdempotencyKeys } from './http/idempotency-keys';
import { ImageInspector } from './http/image-inspector';
import { ImageSource } from './http/image-source';
import { JobFinalWaiter } from './http/job-final-waiter';
import { JobPollFastPath } from './http/job-poll.fast-path';
import { JobProgressFeed } from './http/job-progress.feed';
import { JobViews } from './http/job-views';
import { JobsController } from './http/jobs.controller';
import { JobsService } from './http/jobs.service';
import { jobSettingsProvider } from './jobs.config';
import { JobCommandHandler } from './job.command-handler';

/**
 * The /upscale and /jobs endpoints (spec 4), the signed downloads of local-folder storage (/files) and the operator's
 * file deletion. Exports the poll fast path, which the api registers ahead of Express (runService's fastPaths).
 * Needs billing's AccountsHttpModule in the same process (AccountsService, for the file deletion's account check).
 */
@Module({
  imports: [HttpApiModule, ApiKeysModule],
  controllers: [JobsController, FilesController, AdminFilesController],
  providers: [
    JobsService,
    JobCommandHandler,
    IdempotencyKeys,
    ImageInspector,
    ImageSource,
    JobViews,
    JobProgressFeed,
    JobFinalWaiter,
    JobPollFastPath,
    JobFiles,
    AccountFilesService,
    billingSettingsProvider,
    jobSettingsProvider,
  ],
  exports: [JobPollFastPath],
})
export class JobsHttpModule {}

import { Module } from '@nestjs/common';
import { HttpApiModule, OperatorGuard } from '@upscaler/http-api';
import { JobFiles } from '@upscaler/runtime';
import { AccountFilesService } from './accounts/account-files.service';
import { AccountsHttpModule } from '@upscaler/billing';
import { AdminController } from './accounts/admin.controller';
import { ApiKeysModule } from '@upscaler/api-keys';
import { DashboardController } from './dashboard/dashboard.controller';
import { DocsController } from './docs/docs.controller';
import { FilesController } from './files/files.controller';
import { ImageInspector } from './jobs/image-inspector';
import { ImageSource } from './jobs/image-source';
import { JobsController } from './jobs/jobs.controller';
import { JobViews } from './jobs/job-views';
import { JobFinalWaiter } from './jobs/job-final-waiter';
import { JobProgressFeed } from './jobs/job-progress.feed';
import { JobPollFastPath } from './jobs/job-poll.fast-path';
import { JobsService } from './jobs/jobs.service';
import { IdempotencyKeys } from './jobs/idempotency-keys';
import { OpenApiController } from './openapi/openapi.controller';
import { WebhookEndpointsController } from './webhooks/webhook-endpoints.controller';
import { WebhookEndpointsService } from './webhooks/webhook-endpoints.service';

/** The public /api/v1 API (spec 4) plus docs/design.md §6's additions. Needs RuntimeModule. */
@Module({
  imports: [HttpApiModule, ApiKeysModule, AccountsHttpModule],
  controllers: [
    JobsController,
    AdminController,
    WebhookEndpointsController,
    FilesController,
    OpenApiController,
    DashboardController,
    DocsController,
  ],
  providers: [
    JobsService,
    IdempotencyKeys,
    AccountFilesService,
    JobFiles,
    WebhookEndpointsService,
    ImageInspector,
    ImageSource,
    JobViews,
    JobProgressFeed,
    JobFinalWaiter,
    JobPollFastPath,
    OperatorGuard,
  ],
})
export class ApiModule {}

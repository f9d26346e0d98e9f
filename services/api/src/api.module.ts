import { Module } from '@nestjs/common';
import { JobFiles } from '@upscaler/runtime';
import { AccountFilesService } from './accounts/account-files.service';
import { AccountController } from './accounts/account.controller';
import { AccountsService } from './accounts/accounts.service';
import { AdminController } from './accounts/admin.controller';
import { ApiKeysController } from './api-keys/api-keys.controller';
import { ApiKeysService } from './api-keys/api-keys.service';
import { ApiKeyCache } from './auth/api-key-cache';
import { ApiKeyGuard } from './auth/api-key.guard';
import { OperatorGuard } from './auth/operator.guard';
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
import { RateLimiter } from './rate-limit/rate-limiter';
import { LogTail } from './read-cache/log-tail';
import { AddressRateLimitGuard, UnkeyedErrorRateLimit } from './rate-limit/unkeyed-rate-limit';
import { WebhookEndpointsController } from './webhooks/webhook-endpoints.controller';
import { WebhookEndpointsService } from './webhooks/webhook-endpoints.service';

/** The public /api/v1 API (spec 4) plus docs/design.md §6's additions. Needs RuntimeModule. */
@Module({
  controllers: [
    JobsController,
    AccountController,
    AdminController,
    ApiKeysController,
    WebhookEndpointsController,
    FilesController,
    OpenApiController,
    DashboardController,
    DocsController,
  ],
  providers: [
    JobsService,
    IdempotencyKeys,
    AccountsService,
    AccountFilesService,
    JobFiles,
    ApiKeysService,
    WebhookEndpointsService,
    ImageInspector,
    ImageSource,
    RateLimiter,
    LogTail,
    ApiKeyCache,
    JobViews,
    JobProgressFeed,
    JobFinalWaiter,
    JobPollFastPath,
    AddressRateLimitGuard,
    UnkeyedErrorRateLimit,
    ApiKeyGuard,
    OperatorGuard,
  ],
})
export class ApiModule {}

import { Module } from '@nestjs/common';
import { ApiKeysModule } from '@upscaler/api-keys';
import { AccountsHttpModule } from '@upscaler/billing';
import { HttpApiModule, OperatorGuard } from '@upscaler/http-api';
import { JobsHttpModule } from '@upscaler/jobs';
import { WebhookEndpointsHttpModule } from '@upscaler/webhooks';
import { DashboardController } from './dashboard/dashboard.controller';
import { DocsController } from './docs/docs.controller';
import { OpenApiController } from './openapi/openapi.controller';

/**
 * The public /api/v1 API (spec 4) plus docs/design.md §6's additions: each capability module's endpoints, and the
 * api's own pages (the OpenAPI document, the reference page, the dashboard). Needs RuntimeModule.
 */
@Module({
  imports: [HttpApiModule, ApiKeysModule, AccountsHttpModule, JobsHttpModule, WebhookEndpointsHttpModule],
  controllers: [OpenApiController, DashboardController, DocsController],
  providers: [OperatorGuard],
})
export class ApiModule {}

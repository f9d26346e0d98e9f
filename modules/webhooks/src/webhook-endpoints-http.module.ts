import { Module } from '@nestjs/common';
import { webhookSettingsProvider } from './webhooks.config';
import { ApiKeysModule } from '@upscaler/api-keys';
import { HttpApiModule } from '@upscaler/http-api';
import { WebhookEndpointsController } from './http/webhook-endpoints.controller';
import { WebhookEndpointsService } from './http/webhook-endpoints.service';

/** The /webhook_endpoints endpoints: registration, secrets, the delivery log, test events and re-deliveries. */
@Module({
  imports: [HttpApiModule, ApiKeysModule],
  controllers: [WebhookEndpointsController],
  providers: [WebhookEndpointsService, webhookSettingsProvider],
})
export class WebhookEndpointsHttpModule {}

import { Module } from '@nestjs/common';
import { webhookSettingsProvider } from './webhooks.config';
import { ApiKeysModule } from '@upscaler/api-keys';
import { HttpApiModule } from '@upscaler/http-api';
import { WebhookEndpointsController } from './http/webhook-endpoints.controller';
import { WebhookEndpointsService } from './http/webhook-endpoints.service';
import { DeliveryCommandHandler, WebhookEndpointCommandHandler } from './webhook.command-handlers';

/** The /webhook_endpoints endpoints: registration, secrets, the delivery log, test events and re-deliveries. */
@Module({
  imports: [HttpApiModule, ApiKeysModule],
  controllers: [WebhookEndpointsController],
  providers: [WebhookEndpointsService, WebhookEndpointCommandHandler, DeliveryCommandHandler, webhookSettingsProvider],
})
export class WebhookEndpointsHttpModule {}

import { Module } from '@nestjs/common';
import { DeliveryCommandHandler, WebhookEndpointCommandHandler } from '../webhook.command-handlers';
import { DeliveryScheduler } from './delivery.scheduler';
import { DeliveryWorker } from './delivery.worker';
import { sendWebhook } from './webhook-sender';
import { WEBHOOK_SENDER } from './webhook-sender.port';
import { webhookSettingsProvider } from '../webhooks.config';

/** What the webhooks service runs: signed webhook deliveries with retries (docs/design.md §1, 6). */
@Module({
  providers: [
    DeliveryScheduler,
    DeliveryWorker,
    WebhookEndpointCommandHandler,
    DeliveryCommandHandler,
    { provide: WEBHOOK_SENDER, useValue: sendWebhook },
    webhookSettingsProvider,
  ],
})
export class WebhookWorkersModule {}

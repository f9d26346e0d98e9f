import { Module } from '@nestjs/common';
import { sendWebhook } from '@upscaler/net';
import { DeliveryScheduler } from './delivery.scheduler';
import { DeliveryWorker } from './delivery.worker';
import { WEBHOOK_SENDER } from './webhook-sender.port';

/** Signed webhook deliveries with retries (docs/design.md §1, 6). */
@Module({ providers: [DeliveryScheduler, DeliveryWorker, { provide: WEBHOOK_SENDER, useValue: sendWebhook }] })
export class WebhooksModule {}

import { Module } from '@nestjs/common';
import { DeliveryScheduler } from './delivery.scheduler';
import { DeliveryWorker } from './delivery.worker';

/** Signed webhook deliveries with retries (docs/design.md §1, 6). */
@Module({ providers: [DeliveryScheduler, DeliveryWorker] })
export class WebhooksModule {}

import { Injectable } from '@nestjs/common';
import { createHash } from 'node:crypto';
import { type StoredEvent } from '@upscaler/contracts';
import { type WebhookPayload } from '../model/webhook.views';
import { DeliveryCommandHandler } from '../webhook.command-handlers';
import { endpointWants, type WebhookEndpointState } from '../model/webhook-endpoint.state';
import { webhookEventTypeFor } from '../model/webhook-event-type';
import { toJobView, type JobState } from '@upscaler/jobs';
import { ReadModelRepository } from '@upscaler/projections';
import { eventMetadata, EventLogConsumer } from '@upscaler/runtime';
import { inSpan } from '@upscaler/tracing';

/**
 * When a job reaches a final state, schedules one delivery per enabled endpoint of its account that
 * subscribed to the event type. The delivery id is derived from (endpoint, job, type), and its stream
 * must not exist yet, so a redelivered job event schedules nothing twice.
 */
@Injectable()
export class DeliveryScheduler extends EventLogConsumer {
  constructor(
    private readonly deliveries: DeliveryCommandHandler,
    private readonly readModels: ReadModelRepository,
  ) {
    super({ consumer: 'webhooks-scheduler', categories: ['job'] });
  }

  async handle(event: StoredEvent): Promise<void> {
    if (!webhookEventTypeFor(event.type)) return;
    await inSpan('webhooks.schedule', { 'upscaler.event_type': event.type }, event.metadata, () => this.schedule(event));
  }

  private async schedule(event: StoredEvent): Promise<void> {
    const type = webhookEventTypeFor(event.type);
    if (!type) return;
    // The job's read model is written in the final event's own transaction, so it already holds the
    // final state the event announces (a final state never changes again): no re-read of the job stream.
    const row = await this.readModels.byStream<JobState>(event.streamId);
    if (!row || row.version < event.version) throw new Error(`job read model of ${event.streamId} is behind event ${event.version}`);
    const job = row.state;
    if (!job.job) return;
    const endpoints = await this.readModels.all<WebhookEndpointState>('webhook', { accountId: job.job.accountId });
    const payload: WebhookPayload = { type, timestamp: event.createdAt, data: toJobView(job) };
    const body = JSON.stringify(payload);
    for (const row of endpoints) {
      if (!endpointWants(row.state, type)) continue;
      const ep = row.state.endpoint!;
      const deliveryId = `dlv_${createHash('sha256').update(`${ep.endpointId}|${job.job.jobId}|${type}`).digest('hex').slice(0, 32)}`;
      // Scheduling an existing delivery decides nothing: a redelivered job event sends nothing twice.
      await this.deliveries.handle(
        deliveryId,
        {
          type: 'ScheduleDelivery',
          data: {
            deliveryId,
            endpointId: ep.endpointId,
            accountId: ep.accountId,
            eventType: type,
            jobId: job.job.jobId,
            body,
            now: this.deliveries.now().toISOString(),
          },
        },
        { retries: 5, metadata: eventMetadata('webhooks', { correlationId: job.job.jobId }) },
      );
    }
  }
}

import { Inject, Injectable } from '@nestjs/common';
import { createHash } from 'node:crypto';
import { streams, type JobEvent, type StoredEvent, type WebhookPayload } from '@upscaler/contracts';
import {
  deliveryDecider,
  endpointWants,
  jobDecider,
  toJobView,
  webhookEventTypeFor,
  type JobState,
  type WebhookEndpointState,
  foldEvents,
} from '@upscaler/domain';
import { handleCommand } from '@upscaler/eventstore';
import { eventMetadata, EventLogConsumer, RUNTIME, type Runtime } from '@upscaler/runtime';
import { inSpan } from '@upscaler/tracing';

/**
 * When a job reaches a final state, schedules one delivery per enabled endpoint of its account that
 * subscribed to the event type. The delivery id is derived from (endpoint, job, type), and its stream
 * must not exist yet, so a redelivered job event schedules nothing twice.
 */
@Injectable()
export class DeliveryScheduler extends EventLogConsumer {
  constructor(@Inject(RUNTIME) rt: Runtime) {
    super(rt, { consumer: 'webhooks-scheduler', categories: ['job'] });
  }

  async handle(event: StoredEvent): Promise<void> {
    if (!webhookEventTypeFor(event as unknown as Pick<JobEvent, 'type'>)) return;
    await inSpan('webhooks.schedule', { 'upscaler.event_type': event.type }, event.metadata, () => this.schedule(event));
  }

  private async schedule(event: StoredEvent): Promise<void> {
    const type = webhookEventTypeFor(event as unknown as Pick<JobEvent, 'type'>);
    if (!type) return;
    const jobEvents = (await this.rt.store.readStream(event.streamId)).filter((e) => e.version <= event.version);
    const job: JobState = foldEvents(jobDecider, jobEvents as never);
    if (!job.job) return;
    const endpoints = await this.rt.readModels.all<WebhookEndpointState>('webhook', { accountId: job.job.accountId });
    const payload: WebhookPayload = { type, timestamp: event.createdAt, data: toJobView(job) };
    const body = JSON.stringify(payload);
    for (const row of endpoints) {
      if (!endpointWants(row.state, type)) continue;
      const ep = row.state.endpoint!;
      const deliveryId = `dlv_${createHash('sha256').update(`${ep.endpointId}|${job.job.jobId}|${type}`).digest('hex').slice(0, 32)}`;
      // Scheduling an existing delivery decides nothing: a redelivered job event sends nothing twice.
      await handleCommand(
        this.rt.store,
        streams.delivery(deliveryId),
        deliveryDecider,
        {
          type: 'ScheduleDelivery',
          data: {
            deliveryId,
            endpointId: ep.endpointId,
            accountId: ep.accountId,
            eventType: type,
            jobId: job.job.jobId,
            body,
            now: this.rt.clock.now().toISOString(),
          },
        },
        { retries: 5, metadata: eventMetadata('webhooks', { correlationId: job.job.jobId }) },
      );
    }
  }
}

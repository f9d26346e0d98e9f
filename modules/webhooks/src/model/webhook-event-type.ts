import type { JobEvent, WebhookEventType } from '@upscaler/contracts';

/**
 * The webhook event a job event gives rise to (docs/design.md §4: job.succeeded, job.failed, job.cancelled;
 * spec 6: the service sends a POST when a job finishes). Non-final job events (and
 * any other event type) send nothing: null. Takes the event or just its type.
 */
export function webhookEventTypeFor(event: Pick<JobEvent, 'type'> | { type: string } | string): WebhookEventType | null {
  switch (typeof event === 'string' ? event : event.type) {
    case 'JobSucceeded':
      return 'job.succeeded';
    case 'JobFailed':
      return 'job.failed';
    case 'JobCancelled':
      return 'job.cancelled';
    default:
      return null;
  }
}

import type { JobEvent, WebhookEventType } from '@upscaler/contracts';

/**
 * The webhook event a job event gives rise to (DESIGN 4: job.succeeded, job.failed, job.cancelled;
 * spec 6: the service sends a POST when a job finishes). Non-final job events send nothing: null.
 */
export function webhookEventTypeFor(event: Pick<JobEvent, 'type'>): WebhookEventType | null {
  switch (event.type) {
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

import type { JobEventType, WebhookEventType } from '@upscaler/contracts';
import { webhookEventTypeFor } from './webhook-event-type';

describe('webhook event type of a job event (spec 6: a POST when a job finishes)', () => {
  it.each<[JobEventType, WebhookEventType | null]>([
    ['JobSucceeded', 'job.succeeded'],
    ['JobFailed', 'job.failed'],
    ['JobCancelled', 'job.cancelled'],
    ['JobQueued', null],
    ['JobStarted', null],
    ['JobAttemptLost', null],
    ['JobRequeued', null],
  ])('%s -> %s', (type, expected) => {
    expect([webhookEventTypeFor({ type }), webhookEventTypeFor(type)]).toEqual([expected, expected]);
  });

  it('an event of another stream sends nothing', () => {
    expect(webhookEventTypeFor('CreditsCharged')).toBeNull();
  });
});

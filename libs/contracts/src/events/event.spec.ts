import { IDEMPOTENCY_EVENT_TYPES } from './idempotency-events';
import { asEvents } from './event';
import { JOB_EVENT_TYPES } from './job-events';

describe("asEvents: the one point where the log's events become typed", () => {
  it('passes events of the family through unchanged, in order', () => {
    const events = [
      { type: 'JobQueued', data: { jobId: 'job_1' } },
      { type: 'JobCancelled', data: { jobId: 'job_1' } },
    ];
    expect(asEvents(JOB_EVENT_TYPES, events)).toBe(events);
  });

  it('refuses an event of another family, naming it', () => {
    expect(() =>
      asEvents(IDEMPOTENCY_EVENT_TYPES, [
        { type: 'IdempotencyKeyClaimed', data: {} },
        { type: 'JobQueued', data: {} },
      ]),
    ).toThrow('unexpected event type JobQueued (want one of IdempotencyKeyClaimed, IdempotencyKeyReleased)');
    expect(() => asEvents(JOB_EVENT_TYPES, [{ type: 'IdempotencyKeyClaimed', data: {} }])).toThrow(
      'unexpected event type IdempotencyKeyClaimed',
    );
    expect(asEvents(IDEMPOTENCY_EVENT_TYPES, [{ type: 'IdempotencyKeyReleased', data: {} }])).toHaveLength(1);
  });
});

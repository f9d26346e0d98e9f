import { ACCOUNT_EVENT_TYPES, RESERVATION_EVENT_TYPES } from './account-events';
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
      asEvents(RESERVATION_EVENT_TYPES, [
        { type: 'CreditsReserved', data: {} },
        { type: 'CreditsGranted', data: {} },
      ]),
    ).toThrow('unexpected event type CreditsGranted (want one of CreditsReserved, CreditsRefunded)');
    expect(() => asEvents(JOB_EVENT_TYPES, [{ type: 'AccountOpened', data: {} }])).toThrow('unexpected event type AccountOpened');
    expect(asEvents(ACCOUNT_EVENT_TYPES, [{ type: 'AccountOpened', data: {} }])).toHaveLength(1);
  });
});

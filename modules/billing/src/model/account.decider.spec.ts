import type { AccountEvent } from './account.events';
import { DeciderSpecification, T0, at } from '@upscaler/domain';
import { accountDecider } from './account.decider';
import { reservationDecider } from './reservation.decider';

const ACCT = 'acct_0190a1b2c3d47e8f9a0b1c2d3e4f5a6c';
const JOB = 'job_0190a1b2c3d47e8f9a0b1c2d3e4f0001';
const opened: AccountEvent = { type: 'AccountOpened', data: { accountId: ACCT, name: 'Acme', openedAt: T0 } };
const granted = (amount: number, ms = 0): AccountEvent => ({
  type: 'CreditsGranted',
  data: { accountId: ACCT, amount, grantedAt: at(ms) },
});

describe('account decider (docs/design.md §2: the account stream grows with operator actions only)', () => {
  const spec = DeciderSpecification.for(accountDecider);

  it('opens the account and grants the starting credits', () => {
    spec
      .given([])
      .when({ type: 'OpenAccount', data: { accountId: ACCT, name: 'Acme', credits: 10, now: T0 } })
      .then([opened, granted(10)]);
  });

  it('with 0 credits it only opens the account', () => {
    spec
      .given([])
      .when({ type: 'OpenAccount', data: { accountId: ACCT, name: 'Acme', credits: 0, now: T0 } })
      .then([opened]);
  });

  it('opening twice is a conflict; grants need an open account and a positive integer', () => {
    spec
      .given([opened])
      .when({ type: 'OpenAccount', data: { accountId: ACCT, name: 'Acme', credits: 0, now: T0 } })
      .thenThrows('conflict');
    spec
      .given([])
      .when({ type: 'GrantCredits', data: { amount: 5, now: T0 } })
      .thenThrows('not_found', 'No such account.');
    spec
      .given([opened])
      .when({ type: 'GrantCredits', data: { amount: 1.5, now: T0 } })
      .thenThrows('invalid_request');
    const state = spec
      .given([opened, granted(10)])
      .when({ type: 'GrantCredits', data: { amount: 5, now: at(1) } })
      .then([granted(5, 1)]);
    expect(state.granted).toBe(15);
  });

  it('sets the concurrent-job limit; the same value again appends nothing; out of range is refused', () => {
    const set = (maxConcurrentJobs: number | null) => ({ type: 'SetAccountLimits' as const, data: { maxConcurrentJobs, now: at(5) } });
    const state = spec
      .given([opened])
      .when(set(2))
      .then([{ type: 'AccountLimitsSet', data: { accountId: ACCT, maxConcurrentJobs: 2, setAt: at(5) } }]);
    expect(state.maxConcurrentJobs).toBe(2);
    spec
      .given([opened, { type: 'AccountLimitsSet', data: { accountId: ACCT, maxConcurrentJobs: 2, setAt: at(5) } }])
      .when(set(2))
      .thenNothing();
    spec.given([opened]).when(set(0)).thenThrows('invalid_request');
    spec.given([opened]).when(set(1001)).thenThrows('invalid_request');
    spec.given([opened]).when(set(null)).thenNothing();
  });
});

describe("reservation decider (a job's credits: reserved once, released only if the job never appeared)", () => {
  const spec = DeciderSpecification.for(reservationDecider);
  const reserve = { type: 'ReserveCredits' as const, data: { accountId: ACCT, jobId: JOB, amount: 6, now: at(1) } };
  const reserved: AccountEvent = { type: 'CreditsReserved', data: { accountId: ACCT, jobId: JOB, amount: 6, reservedAt: at(1) } };

  it('reserves once: asking again reserves nothing more', () => {
    spec.given([]).when(reserve).then([reserved]);
    spec.given([reserved]).when(reserve).thenNothing();
  });

  it('refuses a non-positive or fractional amount', () => {
    spec
      .given([])
      .when({ ...reserve, data: { ...reserve.data, amount: 0 } })
      .thenThrows('invalid_request');
    spec
      .given([])
      .when({ ...reserve, data: { ...reserve.data, amount: 2.5 } })
      .thenThrows('invalid_request');
  });

  it('a held reservation is released once with its amount and reason; a second release or one of nothing appends nothing', () => {
    const release = { type: 'ReleaseReservation' as const, data: { reason: 'expired' as const, now: at(9) } };
    const refunded: AccountEvent = {
      type: 'CreditsRefunded',
      data: { accountId: ACCT, jobId: JOB, amount: 6, reason: 'expired', refundedAt: at(9) },
    };
    spec.given([reserved]).when(release).then([refunded]);
    spec.given([reserved, refunded]).when(release).thenNothing();
    spec.given([]).when(release).thenNothing();
  });
});

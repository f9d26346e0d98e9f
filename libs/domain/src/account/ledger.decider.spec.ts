import type { AccountEvent } from '@upscaler/contracts';
import { foldEvents } from '../decider';
import { DeciderSpecification } from '../testing/decider-spec';
import { T0, at } from '../testing/job-fixtures';
import { ledgerDecider, ledgerInvariantHolds } from './ledger.decider';
import { expiredReservations } from './ledger.state';
import { toAccountView } from './ledger.views';

const spec = DeciderSpecification.for(ledgerDecider);
const ACCT = 'acct_0190a1b2c3d47e8f9a0b1c2d3e4f5a6c';
const JOB_A = 'job_0190a1b2c3d47e8f9a0b1c2d3e4f0001';
const JOB_B = 'job_0190a1b2c3d47e8f9a0b1c2d3e4f0002';

const opened: AccountEvent = { type: 'AccountOpened', data: { accountId: ACCT, name: 'Acme', openedAt: T0 } };
const granted = (amount: number, ms = 0): AccountEvent => ({ type: 'CreditsGranted', data: { accountId: ACCT, amount, grantedAt: at(ms) } });
const reserved = (jobId: string, amount: number, ms: number): AccountEvent => ({
  type: 'CreditsReserved',
  data: { accountId: ACCT, jobId, amount, reservedAt: at(ms) },
});
const charged = (jobId: string, amount: number, ms: number): AccountEvent => ({
  type: 'CreditsCharged',
  data: { accountId: ACCT, jobId, amount, chargedAt: at(ms) },
});
const refunded = (jobId: string, amount: number, ms: number, reason: 'failed' | 'cancelled' | 'expired' = 'failed'): AccountEvent => ({
  type: 'CreditsRefunded',
  data: { accountId: ACCT, jobId, amount, reason, refundedAt: at(ms) },
});

const funded = [opened, granted(10)];
const withReservation = [...funded, reserved(JOB_A, 3, 1_000)];

describe('ledger decider (DESIGN 2: credits)', () => {
  describe('OpenAccount', () => {
    it('opens the account and grants the starting credits', () => {
      spec
        .given([])
        .when({ type: 'OpenAccount', data: { accountId: ACCT, name: 'Acme', credits: 10, now: T0 } })
        .then([opened, granted(10)]);
    });

    it('with 0 credits it only opens the account', () => {
      spec.given([]).when({ type: 'OpenAccount', data: { accountId: ACCT, name: 'Acme', credits: 0, now: T0 } }).then([opened]);
    });

    it('opening an open account is a conflict', () => {
      spec
        .given([opened])
        .when({ type: 'OpenAccount', data: { accountId: ACCT, name: 'Acme', credits: 0, now: T0 } })
        .thenThrows('conflict', `Account ${ACCT} is already open.`);
    });

    it.each([-1, 1.5, Number.NaN])('credits %p are invalid', (credits) => {
      spec.given([]).when({ type: 'OpenAccount', data: { accountId: ACCT, name: 'Acme', credits, now: T0 } }).thenThrows('invalid_request');
    });
  });

  describe('GrantCredits', () => {
    it('adds credits to the balance', () => {
      spec.given([opened]).when({ type: 'GrantCredits', data: { amount: 25, now: at(5) } }).then([granted(25, 5)]);
    });

    it.each([0, -3, 2.5])('amount %p is invalid (must be > 0)', (amount) => {
      spec.given([opened]).when({ type: 'GrantCredits', data: { amount, now: at(5) } }).thenThrows('invalid_request', 'amount must be an integer > 0.');
    });

    it('granting to an account that does not exist is not_found', () => {
      spec.given([]).when({ type: 'GrantCredits', data: { amount: 5, now: at(5) } }).thenThrows('not_found');
    });
  });

  describe('ReserveCredits (on submit)', () => {
    it('holds the job credits', () => {
      spec.given(funded).when({ type: 'ReserveCredits', data: { jobId: JOB_A, amount: 3, now: at(1_000) } }).then([reserved(JOB_A, 3, 1_000)]);
    });

    it('reserving exactly the whole balance is allowed and leaves 0', () => {
      const state = spec
        .given(funded)
        .when({ type: 'ReserveCredits', data: { jobId: JOB_A, amount: 10, now: at(1_000) } })
        .then([reserved(JOB_A, 10, 1_000)]);
      expect([state.available, state.reserved]).toEqual([0, 10]);
    });

    it('more than the balance is refused with insufficient_credits (402) and nothing is held', () => {
      spec
        .given([...funded, reserved(JOB_A, 9, 1_000)])
        .when({ type: 'ReserveCredits', data: { jobId: JOB_B, amount: 3, now: at(2_000) } })
        .thenThrows('insufficient_credits', 'The balance (1) is lower than the 3 credits the job needs.');
    });

    it('is idempotent per job: a second reservation for the same job changes nothing', () => {
      spec.given(withReservation).when({ type: 'ReserveCredits', data: { jobId: JOB_A, amount: 3, now: at(1_500) } }).thenNothing();
    });

    it('a job already charged is not reserved again', () => {
      spec
        .given([...withReservation, charged(JOB_A, 3, 2_000)])
        .when({ type: 'ReserveCredits', data: { jobId: JOB_A, amount: 3, now: at(3_000) } })
        .thenNothing();
    });

    it('a job already refunded is not reserved again', () => {
      spec
        .given([...withReservation, refunded(JOB_A, 3, 2_000)])
        .when({ type: 'ReserveCredits', data: { jobId: JOB_A, amount: 3, now: at(3_000) } })
        .thenNothing();
    });

    it('an idempotent repeat is answered even when the balance is now too low', () => {
      spec
        .given([...funded, reserved(JOB_A, 9, 1_000)])
        .when({ type: 'ReserveCredits', data: { jobId: JOB_A, amount: 9, now: at(1_500) } })
        .thenNothing();
    });

    it('any job id is a plain key, even one spelled like an object property', () => {
      const state = spec
        .given(funded)
        .when({ type: 'ReserveCredits', data: { jobId: '__proto__', amount: 3, now: at(1_000) } })
        .then([reserved('__proto__', 3, 1_000)]);
      expect([Object.keys(state.reservations), ledgerInvariantHolds(state)]).toEqual([['__proto__'], true]);
      spec.given([...funded, reserved('__proto__', 3, 1_000)]).when({ type: 'ChargeCredits', data: { jobId: '__proto__', now: at(2_000) } }).then([charged('__proto__', 3, 2_000)]);
      spec.given(funded).when({ type: 'ChargeCredits', data: { jobId: 'toString', now: at(2_000) } }).thenNothing();
    });

    it('an amount of 0 is invalid', () => {
      spec.given(funded).when({ type: 'ReserveCredits', data: { jobId: JOB_A, amount: 0, now: at(1) } }).thenThrows('invalid_request');
    });

    it('reserving on an account that does not exist is not_found', () => {
      spec.given([]).when({ type: 'ReserveCredits', data: { jobId: JOB_A, amount: 3, now: at(1) } }).thenThrows('not_found');
    });
  });

  describe('ChargeCredits (job succeeded: only successful output is charged)', () => {
    it('turns the reservation into a charge of the reserved amount', () => {
      const state = spec
        .given(withReservation)
        .when({ type: 'ChargeCredits', data: { jobId: JOB_A, now: at(4_000) } })
        .then([charged(JOB_A, 3, 4_000)]);
      expect([state.available, state.reserved, state.charged, state.settled.get(JOB_A)]).toEqual([7, 0, 3, 'charged']);
    });

    it('a second charge changes nothing', () => {
      spec.given([...withReservation, charged(JOB_A, 3, 4_000)]).when({ type: 'ChargeCredits', data: { jobId: JOB_A, now: at(5_000) } }).thenNothing();
    });

    it('a charge after a refund changes nothing (exactly one of charge/refund)', () => {
      spec.given([...withReservation, refunded(JOB_A, 3, 4_000)]).when({ type: 'ChargeCredits', data: { jobId: JOB_A, now: at(5_000) } }).thenNothing();
    });

    it('a charge for a job that was never reserved changes nothing', () => {
      spec.given(withReservation).when({ type: 'ChargeCredits', data: { jobId: JOB_B, now: at(5_000) } }).thenNothing();
    });
  });

  describe('RefundCredits (job failed or cancelled, or reservation expired)', () => {
    it.each(['failed', 'cancelled', 'expired'] as const)('refunds the reserved amount (reason %s)', (reason) => {
      const state = spec
        .given(withReservation)
        .when({ type: 'RefundCredits', data: { jobId: JOB_A, reason, now: at(4_000) } })
        .then([refunded(JOB_A, 3, 4_000, reason)]);
      expect([state.available, state.reserved, state.charged, state.settled.get(JOB_A)]).toEqual([10, 0, 0, 'refunded']);
    });

    it('a second refund changes nothing', () => {
      spec
        .given([...withReservation, refunded(JOB_A, 3, 4_000)])
        .when({ type: 'RefundCredits', data: { jobId: JOB_A, reason: 'cancelled', now: at(5_000) } })
        .thenNothing();
    });

    it('a refund after the charge changes nothing: finish beats cancel, the charge stands (spec 3 rule 2)', () => {
      spec
        .given([...withReservation, charged(JOB_A, 3, 4_000)])
        .when({ type: 'RefundCredits', data: { jobId: JOB_A, reason: 'cancelled', now: at(4_001) } })
        .thenNothing();
    });

    it('a refund for a job that was never reserved changes nothing', () => {
      spec.given(funded).when({ type: 'RefundCredits', data: { jobId: JOB_B, reason: 'failed', now: at(5_000) } }).thenNothing();
    });
  });

  describe('queries and views', () => {
    const history = [...funded, reserved(JOB_A, 3, 1_000), reserved(JOB_B, 6, 2_000), granted(5, 2_500), charged(JOB_A, 3, 3_000)];

    it('the invariant granted = available + reserved + charged holds and the account view shows it', () => {
      const state = foldEvents(ledgerDecider, history);
      expect(ledgerInvariantHolds(state)).toBe(true);
      expect(toAccountView(state)).toEqual({
        id: ACCT,
        object: 'account',
        name: 'Acme',
        balance: 6,
        reserved: 6,
        charged: 3,
        created_at: T0,
      });
    });

    it('the invariant check catches a state that breaks it', () => {
      const state = foldEvents(ledgerDecider, history);
      expect([
        ledgerInvariantHolds({ ...state, available: state.available + 1 }),
        ledgerInvariantHolds({ ...state, reserved: 0, granted: state.granted - 6 }),
        ledgerInvariantHolds({ ...state, available: -1, granted: state.granted - state.available - 1 }),
      ]).toEqual([false, false, false]);
    });

    it('expiredReservations lists unsettled reservations older than the timeout, oldest first', () => {
      const state = foldEvents(ledgerDecider, [...funded, reserved(JOB_B, 3, 2_000), reserved(JOB_A, 3, 1_000), reserved('job_c', 3, 9_000)]);
      expect(expiredReservations(state, at(10_000), 7_999)).toEqual([
        { jobId: JOB_A, amount: 3, reservedAt: at(1_000) },
        { jobId: JOB_B, amount: 3, reservedAt: at(2_000) },
      ]);
      expect(expiredReservations(state, at(10_000), 8_000)).toEqual([{ jobId: JOB_A, amount: 3, reservedAt: at(1_000) }]);
      expect(expiredReservations(foldEvents(ledgerDecider, history), at(1_000_000), 1_000)).toEqual([
        { jobId: JOB_B, amount: 6, reservedAt: at(2_000) },
      ]);
    });

    it('an account that was never opened has no view: not_found', () => {
      expect(() => toAccountView(ledgerDecider.initialState())).toThrow('No such account.');
    });

    it('evolve is pure: folding more events leaves an earlier state unchanged', () => {
      const before = foldEvents(ledgerDecider, withReservation);
      foldEvents(ledgerDecider, [refunded(JOB_A, 3, 2_000)], before);
      expect([before.reservations[JOB_A], before.settled.has(JOB_A), before.available]).toEqual([{ amount: 3, reservedAt: at(1_000) }, false, 7]);
    });
  });
});

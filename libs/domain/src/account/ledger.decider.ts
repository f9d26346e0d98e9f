import { DomainError, type AccountEvent } from '@upscaler/contracts';
import type { Decider } from '../decider';
import { PersistentMap } from '../shared/persistent-map';
import { canonicalInstant } from '../shared/time';
import type { ChargeCredits, GrantCredits, LedgerCommand, OpenAccount, RefundCredits, ReserveCredits } from './ledger.commands';
import { initialLedgerState, reservationOf, type LedgerState, type Settlement } from './ledger.state';

/**
 * The credit ledger (DESIGN 2; spec 1: credits are reserved on submit, refunded when the job fails or
 * is cancelled, and only successful output is charged).
 *
 * - Reserve is idempotent per job: a job already reserved or settled produces no events.
 * - Exactly one of charge/refund follows a reservation: the second one, and one for a job that was
 *   never reserved, produce no events (consumers may see a job event twice).
 * - No account goes below zero: a reservation larger than the available credits is refused with
 *   insufficient_credits (402).
 */
export const ledgerDecider: Decider<LedgerState, LedgerCommand, AccountEvent> = {
  initialState: initialLedgerState,
  decide,
  evolve,
};

/** DESIGN 2 invariant, testable at any moment. */
export function ledgerInvariantHolds(state: LedgerState): boolean {
  let held = 0;
  for (const r of Object.values(state.reservations)) held += r.amount;
  return (
    state.granted === state.available + state.reserved + state.charged &&
    state.reserved === held &&
    state.available >= 0 &&
    state.reserved >= 0 &&
    state.charged >= 0
  );
}

function decide(command: LedgerCommand, state: LedgerState): AccountEvent[] {
  switch (command.type) {
    case 'OpenAccount':
      return open(command, state);
    case 'GrantCredits':
      return grant(command, state);
    case 'ReserveCredits':
      return reserve(command, state);
    case 'ChargeCredits':
      return charge(command, state);
    case 'RefundCredits':
      return refund(command, state);
  }
}

function open({ data }: OpenAccount, state: LedgerState): AccountEvent[] {
  if (state.open) throw new DomainError('conflict', `Account ${state.accountId} is already open.`);
  if (!data.accountId) throw new DomainError('invalid_request', 'accountId is required.');
  if (!Number.isInteger(data.credits) || data.credits < 0) {
    throw new DomainError('invalid_request', 'credits must be an integer >= 0.');
  }
  const now = canonicalInstant(data.now);
  const events: AccountEvent[] = [{ type: 'AccountOpened', data: { accountId: data.accountId, name: data.name, openedAt: now } }];
  if (data.credits > 0) {
    events.push({ type: 'CreditsGranted', data: { accountId: data.accountId, amount: data.credits, grantedAt: now } });
  }
  return events;
}

function grant({ data }: GrantCredits, state: LedgerState): AccountEvent[] {
  const accountId = openAccount(state);
  positiveInteger(data.amount, 'amount');
  return [{ type: 'CreditsGranted', data: { accountId, amount: data.amount, grantedAt: canonicalInstant(data.now) } }];
}

function reserve({ data }: ReserveCredits, state: LedgerState): AccountEvent[] {
  const accountId = openAccount(state);
  positiveInteger(data.amount, 'amount');
  if (!data.jobId) throw new DomainError('invalid_request', 'jobId is required.');
  if (reservationOf(state, data.jobId) || state.settled.has(data.jobId)) return [];
  if (state.available < data.amount) {
    throw new DomainError(
      'insufficient_credits',
      `The balance (${state.available}) is lower than the ${data.amount} credits the job needs.`,
      { balance: state.available, required: data.amount },
    );
  }
  return [
    {
      type: 'CreditsReserved',
      data: { accountId, jobId: data.jobId, amount: data.amount, reservedAt: canonicalInstant(data.now) },
    },
  ];
}

function charge({ data }: ChargeCredits, state: LedgerState): AccountEvent[] {
  const accountId = openAccount(state);
  const reservation = reservationOf(state, data.jobId);
  if (!reservation) return [];
  return [
    {
      type: 'CreditsCharged',
      data: { accountId, jobId: data.jobId, amount: reservation.amount, chargedAt: canonicalInstant(data.now) },
    },
  ];
}

function refund({ data }: RefundCredits, state: LedgerState): AccountEvent[] {
  const accountId = openAccount(state);
  const reservation = reservationOf(state, data.jobId);
  if (!reservation) return [];
  return [
    {
      type: 'CreditsRefunded',
      data: {
        accountId,
        jobId: data.jobId,
        amount: reservation.amount,
        reason: data.reason,
        refundedAt: canonicalInstant(data.now),
      },
    },
  ];
}

function openAccount(state: LedgerState): string {
  if (!state.open || state.accountId === null) throw new DomainError('not_found', 'No such account.');
  return state.accountId;
}

function positiveInteger(value: number, field: string): void {
  if (!Number.isInteger(value) || value <= 0) throw new DomainError('invalid_request', `${field} must be an integer > 0.`);
}

function evolve(state: LedgerState, event: AccountEvent): LedgerState {
  switch (event.type) {
    case 'AccountOpened':
      return { ...state, open: true, accountId: event.data.accountId, name: event.data.name, openedAt: event.data.openedAt };
    case 'CreditsGranted':
      return { ...state, granted: state.granted + event.data.amount, available: state.available + event.data.amount };
    case 'CreditsReserved': {
      // fromEntries defines the key as an own property, whatever the job id spells.
      const added = Object.fromEntries([[event.data.jobId, { amount: event.data.amount, reservedAt: event.data.reservedAt }]]);
      const reservations = { ...state.reservations, ...added };
      return {
        ...state,
        available: state.available - event.data.amount,
        reserved: state.reserved + event.data.amount,
        reservations,
      };
    }
    case 'CreditsCharged': {
      const settled = settle(state, event.data.jobId, 'charged');
      return { ...settled, reserved: state.reserved - event.data.amount, charged: state.charged + event.data.amount };
    }
    case 'CreditsRefunded': {
      const settled = settle(state, event.data.jobId, 'refunded');
      return { ...settled, reserved: state.reserved - event.data.amount, available: state.available + event.data.amount };
    }
  }
}

function settle(state: LedgerState, jobId: string, outcome: Settlement): LedgerState {
  const { [jobId]: _settled, ...reservations } = state.reservations;
  const settled = state.settled instanceof PersistentMap ? state.settled : PersistentMap.of(state.settled);
  return { ...state, reservations, settled: settled.set(jobId, outcome) };
}

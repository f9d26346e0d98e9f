import { DomainError } from '@upscaler/contracts';
import { type AccountEvent, ACCOUNT_EVENT_TYPES } from './account.events';
import { canonicalInstant, type Decider } from '@upscaler/domain';
import type { AccountCommand, GrantCredits, OpenAccount, SetAccountLimits } from './account.commands';
import { MAX_CONCURRENT_JOBS_LIMIT, initialAccountState, type AccountState } from './account.state';

/**
 * An account's own stream (docs/design.md §2; billing owns it): opening, grants, settings. It grows with
 * operator actions only; a job's credits live in its `reservation-…` stream and its final event
 * (reservation.decider.ts, job.decider.ts), so the stream stays small whatever the account runs.
 */
export const accountDecider: Decider<AccountState, AccountCommand, AccountEvent> = {
  eventTypes: ACCOUNT_EVENT_TYPES,
  initialState: initialAccountState,
  decide,
  evolve,
};

function decide(command: AccountCommand, state: AccountState): AccountEvent[] {
  switch (command.type) {
    case 'OpenAccount':
      return open(command, state);
    case 'GrantCredits':
      return grant(command, state);
    case 'SetAccountLimits':
      return setLimits(command, state);
  }
}

function open({ data }: OpenAccount, state: AccountState): AccountEvent[] {
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

function grant({ data }: GrantCredits, state: AccountState): AccountEvent[] {
  const accountId = openAccount(state);
  if (!Number.isInteger(data.amount) || data.amount <= 0) throw new DomainError('invalid_request', 'amount must be an integer > 0.');
  return [{ type: 'CreditsGranted', data: { accountId, amount: data.amount, grantedAt: canonicalInstant(data.now) } }];
}

function setLimits({ data }: SetAccountLimits, state: AccountState): AccountEvent[] {
  const accountId = openAccount(state);
  const limit = data.maxConcurrentJobs;
  if (limit !== null && (!Number.isInteger(limit) || limit < 1 || limit > MAX_CONCURRENT_JOBS_LIMIT)) {
    throw new DomainError('invalid_request', `max_concurrent_jobs must be an integer from 1 to ${MAX_CONCURRENT_JOBS_LIMIT}, or null.`);
  }
  if (limit === state.maxConcurrentJobs) return [];
  return [{ type: 'AccountLimitsSet', data: { accountId, maxConcurrentJobs: limit, setAt: canonicalInstant(data.now) } }];
}

function openAccount(state: AccountState): string {
  if (!state.open || state.accountId === null) throw new DomainError('not_found', 'No such account.');
  return state.accountId;
}

function evolve(state: AccountState, event: AccountEvent): AccountState {
  switch (event.type) {
    case 'AccountOpened':
      return { ...state, open: true, accountId: event.data.accountId, name: event.data.name, openedAt: event.data.openedAt };
    case 'CreditsGranted':
      return { ...state, granted: state.granted + event.data.amount };
    case 'AccountLimitsSet':
      return { ...state, maxConcurrentJobs: event.data.maxConcurrentJobs };
    default:
      // CreditsReserved/Charged/Refunded on account streams written before 2026-11-24: the balance
      // projection folds them; the account's own state does not depend on them.
      return state;
  }
}

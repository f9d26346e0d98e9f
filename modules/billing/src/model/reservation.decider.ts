import { DomainError } from '@upscaler/contracts';
import { type AccountEvent, RESERVATION_EVENT_TYPES } from './account.events';
import { canonicalInstant, type Decider } from '@upscaler/domain';

/**
 * A job's credits (docs/design.md §2; billing owns `reservation-<job id>`): reserved once before the job is
 * accepted; settled by the job's own final event (charge or refund, job.decider.ts), or refunded here
 * when the job never appeared (the api gave it up, or it expired). At most two events, ever.
 *
 * Whether the balance covers the reservation is not in this stream: billing checks the balance
 * projection inside the append's transaction (a guard under the log lock), so no concurrent append
 * can spend the same credits.
 */
export interface ReserveCredits {
  type: 'ReserveCredits';
  data: { accountId: string; jobId: string; amount: number; now: string };
}
/** The job was not created (released by the api) or did not appear in time (expired). */
export interface ReleaseReservation {
  type: 'ReleaseReservation';
  data: { reason: 'expired' | 'released'; now: string };
}
export type ReservationCommand = ReserveCredits | ReleaseReservation;

export interface ReservationState {
  status: 'none' | 'held' | 'released';
  accountId: string | null;
  jobId: string | null;
  amount: number;
}

export const reservationDecider: Decider<ReservationState, ReservationCommand, AccountEvent> = {
  eventTypes: RESERVATION_EVENT_TYPES,
  initialState: () => ({ status: 'none', accountId: null, jobId: null, amount: 0 }),
  decide(command, state) {
    if (command.type === 'ReserveCredits') {
      const { data } = command;
      if (!Number.isInteger(data.amount) || data.amount <= 0) throw new DomainError('invalid_request', 'amount must be an integer > 0.');
      if (!data.jobId || !data.accountId) throw new DomainError('invalid_request', 'accountId and jobId are required.');
      // Idempotent per job: asking again reserves nothing more.
      if (state.status !== 'none') return [];
      return [
        {
          type: 'CreditsReserved',
          data: { accountId: data.accountId, jobId: data.jobId, amount: data.amount, reservedAt: canonicalInstant(data.now) },
        },
      ];
    }
    if (state.status !== 'held') return [];
    return [
      {
        type: 'CreditsRefunded',
        data: {
          accountId: state.accountId!,
          jobId: state.jobId!,
          amount: state.amount,
          reason: command.data.reason,
          refundedAt: canonicalInstant(command.data.now),
        },
      },
    ];
  },
  evolve(state, event) {
    if (event.type === 'CreditsReserved') {
      return { status: 'held', accountId: event.data.accountId, jobId: event.data.jobId, amount: event.data.amount };
    }
    if (event.type === 'CreditsRefunded') return { ...state, status: 'released' };
    return state;
  },
};

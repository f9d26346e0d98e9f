import { PersistentMap } from '../shared/persistent-map';

export interface Reservation {
  amount: number;
  reservedAt: string;
}

export type Settlement = 'charged' | 'refunded';

/**
 * An account's credits, folded from its ledger events. Invariant (DESIGN 2), checked by
 * `ledgerInvariantHolds`: granted = available + reserved + charged, and available >= 0.
 */
export interface LedgerState {
  open: boolean;
  accountId: string | null;
  name: string | null;
  openedAt: string | null;
  /** Every credit ever granted. */
  granted: number;
  /** Credits free for new jobs (the account view's `balance`). */
  available: number;
  /** Credits held by unsettled reservations: the sum of `reservations`. */
  reserved: number;
  /** Credits spent on succeeded jobs. */
  charged: number;
  /**
   * Unsettled reservations by job id: few (one per unfinished job), so a plain JSON-friendly record
   * copied on each change. Read it with `reservationOf` (own keys only).
   */
  reservations: Readonly<Record<string, Reservation>>;
  /**
   * How every settled reservation ended, by job id. It grows with the account's whole history, so it
   * is a structure-sharing map (PersistentMap) to keep `evolve` pure without quadratic copying.
   */
  settled: ReadonlyMap<string, Settlement>;
}

export function initialLedgerState(): LedgerState {
  return {
    open: false,
    accountId: null,
    name: null,
    openedAt: null,
    granted: 0,
    available: 0,
    reserved: 0,
    charged: 0,
    reservations: {},
    settled: PersistentMap.empty<Settlement>(),
  };
}

/**
 * Reservations older than `olderThanMs` at `now` (reservedAt + olderThanMs < now), oldest first: for
 * billing's sweep, which refunds (reason 'expired') a reservation whose job never appeared in the log.
 * Billing must only refund those whose job stream is really absent; a reservation of a job that is
 * still running is not expired, however old.
 */
export function expiredReservations(
  state: LedgerState,
  now: string,
  olderThanMs: number,
): Array<{ jobId: string; amount: number; reservedAt: string }> {
  const cutoff = Date.parse(now) - olderThanMs;
  return Object.entries(state.reservations)
    .filter(([, r]) => Date.parse(r.reservedAt) < cutoff)
    .map(([jobId, r]) => ({ jobId, amount: r.amount, reservedAt: r.reservedAt }))
    .sort((a, b) => Date.parse(a.reservedAt) - Date.parse(b.reservedAt) || (a.jobId < b.jobId ? -1 : 1));
}

export function reservationOf(state: LedgerState, jobId: string): Reservation | undefined {
  return Object.hasOwn(state.reservations, jobId) ? state.reservations[jobId] : undefined;
}

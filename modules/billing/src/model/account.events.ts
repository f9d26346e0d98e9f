/**
 * Credit events (docs/design.md §2), data v1. An `account-…` stream holds the account's opening, its grants and
 * its settings: it grows with operator actions, never with jobs. A job's credits live in its own
 * `reservation-<job id>` stream (CreditsReserved, and CreditsRefunded when the job never appeared),
 * and the job's one-time final event is its charge or refund (job-events.ts). CreditsCharged, and
 * CreditsReserved/CreditsRefunded on account streams, are how logs written before 2026-11-24 hold
 * them; the balance projection still folds them.
 */
export interface AccountOpenedData {
  accountId: string;
  name: string;
  openedAt: string;
}
export interface CreditsGrantedData {
  accountId: string;
  amount: number;
  grantedAt: string;
}
export interface CreditsReservedData {
  accountId: string;
  jobId: string;
  amount: number;
  reservedAt: string;
}
export interface CreditsChargedData {
  accountId: string;
  jobId: string;
  amount: number;
  chargedAt: string;
}
/** expired: the job never appeared in time; released: the api gave the job up before creating it. */
export type RefundReason = 'failed' | 'cancelled' | 'expired' | 'released';
export interface CreditsRefundedData {
  accountId: string;
  jobId: string;
  amount: number;
  reason: RefundReason;
  refundedAt: string;
}

/** Operator setting: at most this many of the account's jobs run at once (null: the configured default). */
export interface AccountLimitsSetData {
  accountId: string;
  maxConcurrentJobs: number | null;
  setAt: string;
}

export type AccountEvent =
  | { type: 'AccountOpened'; data: AccountOpenedData }
  | { type: 'CreditsGranted'; data: CreditsGrantedData }
  | { type: 'AccountLimitsSet'; data: AccountLimitsSetData }
  | { type: 'CreditsReserved'; data: CreditsReservedData }
  | { type: 'CreditsCharged'; data: CreditsChargedData }
  | { type: 'CreditsRefunded'; data: CreditsRefundedData };
export type AccountEventType = AccountEvent['type'];
export const ACCOUNT_EVENT_TYPES: readonly AccountEventType[] = [
  'AccountOpened',
  'CreditsGranted',
  'AccountLimitsSet',
  'CreditsReserved',
  'CreditsCharged',
  'CreditsRefunded',
];
/** A `reservation-<job>` stream's events. */
export const RESERVATION_EVENT_TYPES: readonly AccountEventType[] = ['CreditsReserved', 'CreditsRefunded'];

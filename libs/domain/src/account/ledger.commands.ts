import type { RefundReason } from '@upscaler/contracts';

/** Commands of an `account-…` stream (the credit ledger, DESIGN 2). `now` is an ISO 8601 UTC instant. */

/** Operator API: POST /admin/accounts. Grants `credits` at once when > 0. */
export interface OpenAccount {
  type: 'OpenAccount';
  data: { accountId: string; name: string; credits: number; now: string };
}

/** Operator API: POST /admin/accounts/{id}/credits. */
export interface GrantCredits {
  type: 'GrantCredits';
  data: { amount: number; now: string };
}

/** POST /upscale: hold the job's credits before it is accepted. Idempotent per job. */
export interface ReserveCredits {
  type: 'ReserveCredits';
  data: { jobId: string; amount: number; now: string };
}

/** The job succeeded: the reservation becomes a charge. */
export interface ChargeCredits {
  type: 'ChargeCredits';
  data: { jobId: string; now: string };
}

/** The job failed or was cancelled, or its reservation expired: the credits come back. */
export interface RefundCredits {
  type: 'RefundCredits';
  data: { jobId: string; reason: RefundReason; now: string };
}

export type LedgerCommand = OpenAccount | GrantCredits | ReserveCredits | ChargeCredits | RefundCredits;

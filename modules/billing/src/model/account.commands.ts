/** Commands of an `account-…` stream (billing, docs/design.md §2). `now` is an ISO 8601 UTC instant. */

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

/** Operator API: PATCH /admin/accounts/{id}: at most this many jobs of the account run at once (null: the default). */
export interface SetAccountLimits {
  type: 'SetAccountLimits';
  data: { maxConcurrentJobs: number | null; now: string };
}

export type AccountCommand = OpenAccount | GrantCredits | SetAccountLimits;

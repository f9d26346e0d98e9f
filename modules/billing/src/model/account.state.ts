/**
 * An account as its own stream tells it: opened, named, its grants and settings. Balances are not
 * folded here: they move with every job, so they live in the balance projection (docs/design.md §2), which
 * folds grants, reservations and the jobs' final events inside the transaction of each append.
 */
export interface AccountState {
  open: boolean;
  accountId: string | null;
  name: string | null;
  openedAt: string | null;
  /** Every credit ever granted. */
  granted: number;
  /** null: the configured default (UPSCALE_ACCOUNT_MAX_CONCURRENT_JOBS). */
  maxConcurrentJobs: number | null;
}

export function initialAccountState(): AccountState {
  return { open: false, accountId: null, name: null, openedAt: null, granted: 0, maxConcurrentJobs: null };
}

/** The most an operator may set as an account's concurrent-job limit. */
export const MAX_CONCURRENT_JOBS_LIMIT = 1_000;

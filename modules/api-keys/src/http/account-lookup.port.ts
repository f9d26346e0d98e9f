/**
 * What the operator's key endpoint needs of accounts: that one exists (404 `not_found` otherwise). Billing owns
 * accounts and provides this port (its AccountsHttpModule binds ACCOUNT_LOOKUP), so this module does not depend on it.
 */
export interface AccountLookup {
  /** Resolves when the account exists; throws DomainError('not_found') when it does not. */
  load(accountId: string): Promise<void>;
}
export const ACCOUNT_LOOKUP = Symbol('ACCOUNT_LOOKUP');

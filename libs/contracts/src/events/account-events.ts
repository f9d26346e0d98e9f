import type { Scope } from '../job';

/** Events of an `account-…` stream (the credit ledger, DESIGN 2), data v1. */
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
export type RefundReason = 'failed' | 'cancelled' | 'expired';
export interface CreditsRefundedData {
  accountId: string;
  jobId: string;
  amount: number;
  reason: RefundReason;
  refundedAt: string;
}

export type AccountEvent =
  | { type: 'AccountOpened'; data: AccountOpenedData }
  | { type: 'CreditsGranted'; data: CreditsGrantedData }
  | { type: 'CreditsReserved'; data: CreditsReservedData }
  | { type: 'CreditsCharged'; data: CreditsChargedData }
  | { type: 'CreditsRefunded'; data: CreditsRefundedData };
export type AccountEventType = AccountEvent['type'];

/** Events of an `apikey-…` stream, data v1. Only the SHA-256 of the key is ever stored. */
export interface ApiKeyCreatedData {
  keyId: string;
  accountId: string;
  name: string | null;
  scopes: Scope[];
  /** First characters of the key, shown in lists (`usk_ab12…`). */
  prefix: string;
  /** hex SHA-256 of the full key. */
  hash: string;
  rateLimitPerMinute: number | null;
  createdAt: string;
}
export interface ApiKeyRevokedData {
  keyId: string;
  accountId: string;
  revokedAt: string;
}
export type ApiKeyEvent =
  | { type: 'ApiKeyCreated'; data: ApiKeyCreatedData }
  | { type: 'ApiKeyRevoked'; data: ApiKeyRevokedData };

/** Events of an `idempotency-…` stream: the first claim of a key wins by optimistic concurrency. */
export interface IdempotencyKeyClaimedData {
  accountId: string;
  key: string;
  /** SHA-256 of the request parameters, to reject the same key with other parameters. */
  requestHash: string;
  jobId: string;
  claimedAt: string;
}
/** The claimed request failed before its job was created: the key may be used again. */
export interface IdempotencyKeyReleasedData {
  accountId: string;
  jobId: string;
  reason: string;
  releasedAt: string;
}
export type IdempotencyEvent =
  | { type: 'IdempotencyKeyClaimed'; data: IdempotencyKeyClaimedData }
  | { type: 'IdempotencyKeyReleased'; data: IdempotencyKeyReleasedData };

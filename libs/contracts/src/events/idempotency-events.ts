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
  { type: 'IdempotencyKeyClaimed'; data: IdempotencyKeyClaimedData } | { type: 'IdempotencyKeyReleased'; data: IdempotencyKeyReleasedData };
export const IDEMPOTENCY_EVENT_TYPES: readonly IdempotencyEvent['type'][] = ['IdempotencyKeyClaimed', 'IdempotencyKeyReleased'];

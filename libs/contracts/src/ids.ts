import { v7 as uuidv7 } from 'uuid';

/**
 * Prefixed, time-ordered ids (docs/design.md §4): `job_` + the 32 hex digits of a UUIDv7. Lexicographic order
 * of ids is creation order, so newest-first cursor paging by id never skips or repeats.
 */
export type IdPrefix = 'job' | 'acct' | 'key' | 'we' | 'dlv' | 'evt' | 'req';

export function newId(prefix: IdPrefix): string {
  return `${prefix}_${uuidv7().replace(/-/g, '')}`;
}

const ID_PATTERN = /^(job|acct|key|we|dlv|evt|req)_[0-9a-f]{32}$/;
export function isId(value: string, prefix: IdPrefix): boolean {
  const m = ID_PATTERN.exec(value);
  return m !== null && m[1] === prefix;
}

/** Stream ids of the event log (docs/design.md §2). */
export const streams = {
  job: (jobId: string) => `job-${jobId}`,
  account: (accountId: string) => `account-${accountId}`,
  apiKey: (keyId: string) => `apikey-${keyId}`,
  webhookEndpoint: (endpointId: string) => `webhook-${endpointId}`,
  delivery: (deliveryId: string) => `delivery-${deliveryId}`,
  idempotency: (accountId: string, keyHash: string) => `idempotency-${accountId}-${keyHash}`,
  /** The job's credits (billing): CreditsReserved, and CreditsRefunded if the job never appeared. */
  reservation: (jobId: string) => `reservation-${jobId}`,
} as const;

export type StreamCategory = 'job' | 'account' | 'apikey' | 'webhook' | 'delivery' | 'idempotency' | 'reservation';
export function categoryOf(streamId: string): StreamCategory {
  return streamId.slice(0, streamId.indexOf('-')) as StreamCategory;
}

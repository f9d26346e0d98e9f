import { createHash } from 'node:crypto';
import { DomainError } from '@upscaler/contracts';
import { IdempotencyKeyHeader } from './jobs.schemas';

/** Idempotency-Key (spec 4.1; docs/design.md §4): any string of 1-255 printable characters, scoped to the account. */
export function parseIdempotencyKey(header: unknown): string | null {
  if (header === undefined) return null;
  if (!IdempotencyKeyHeader.safeParse(header).success) {
    throw new DomainError('invalid_request', 'Idempotency-Key must be 1-255 printable ASCII characters.');
  }
  return header as string;
}

export function sha256(data: string | Buffer): string {
  return createHash('sha256').update(data).digest('hex');
}

/** What makes two requests "the same" for a key: the parameters and the image (bytes or URL). */
export function requestFingerprint(parts: Record<string, string | undefined>): string {
  const ordered = Object.keys(parts)
    .sort()
    .map((k) => [k, parts[k] ?? null]);
  return sha256(JSON.stringify(ordered));
}

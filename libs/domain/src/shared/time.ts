import { DomainError } from '@upscaler/contracts';

/**
 * Instants travel as ISO 8601 UTC strings (as in every event). Deciders never read the clock: `now`
 * comes in with the command. These helpers only parse and format, which is pure.
 */
export function toEpochMs(iso: string, field = 'now'): number {
  const ms = typeof iso === 'string' ? Date.parse(iso) : Number.NaN;
  if (Number.isNaN(ms)) throw new DomainError('invalid_request', `${field} must be an ISO 8601 time, got ${String(iso)}.`);
  return ms;
}

/** The canonical form (`2026-01-02T03:04:05.678Z`) of an instant, so every event spells time alike. */
export function canonicalInstant(iso: string, field = 'now'): string {
  return new Date(toEpochMs(iso, field)).toISOString();
}

export function addMs(iso: string, ms: number): string {
  return new Date(toEpochMs(iso) + ms).toISOString();
}

/**
 * Milliseconds from `from` to `to`, never negative: the two instants may come from the clocks of two
 * replicas, and a negative duration would be nonsense in a job view.
 */
export function elapsedMs(fromIso: string, toIso: string): number {
  return Math.max(0, toEpochMs(toIso) - toEpochMs(fromIso, 'start time'));
}

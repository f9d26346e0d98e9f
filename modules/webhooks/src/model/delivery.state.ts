import type { DeliveryAttemptedData, DeliveryScheduledData } from './webhook.events';

export type DeliveryOutcome = DeliveryAttemptedData['outcome'];
export type FinalDeliveryOutcome = Exclude<DeliveryOutcome, 'retrying'>;

export interface DeliveryState {
  /** `scheduled`: no attempt yet; then the outcome of the last attempt. */
  status: 'none' | 'scheduled' | DeliveryOutcome;
  delivery: DeliveryScheduledData | null;
  /** Every attempt, in order (at most schedule length + 1). */
  attempts: DeliveryAttemptedData[];
  /** When the next attempt is due: scheduledAt at first, then the retry time; null once final. */
  nextAttemptAt: string | null;
}

export function initialDeliveryState(): DeliveryState {
  return { status: 'none', delivery: null, attempts: [], nextAttemptAt: null };
}

export function isFinalDeliveryStatus(status: DeliveryState['status']): status is FinalDeliveryOutcome {
  return status === 'succeeded' || status === 'abandoned' || status === 'endpoint_gone';
}

/** Whether the sender should make the next attempt now. */
export function isDeliveryDue(state: DeliveryState, now: string): boolean {
  return state.nextAttemptAt !== null && Date.parse(state.nextAttemptAt) <= Date.parse(now);
}

import type { DeliveryScheduledData } from './webhook.events';

/** Commands of a `delivery-…` stream: one webhook event to one endpoint, with its retries. */
export interface ScheduleDelivery {
  type: 'ScheduleDelivery';
  /**
   * DeliveryScheduled's data, with the command's instant for scheduledAt; messageId defaults to the delivery id (a
   * re-delivery passes the original's) and redeliveryOf to null.
   */
  data: Omit<DeliveryScheduledData, 'scheduledAt'> & { now: string };
}

/**
 * The result of one HTTP attempt. `statusCode` null: no answer (network error, timeout, SSRF refusal),
 * with `error` saying why. `jitter` in [0, 1) is drawn by the caller; `schedule` defaults to
 * DEFAULT_RETRY_SCHEDULE_MS. `abandon`: the sender gives up now whatever the answer (the endpoint was
 * disabled or deleted meanwhile), so the log ends with an abandoned attempt instead of a dangling retry.
 */
export interface RecordAttempt {
  type: 'RecordAttempt';
  data: {
    statusCode: number | null;
    error: string | null;
    now: string;
    durationMs: number;
    jitter: number;
    schedule?: readonly number[];
    abandon?: boolean;
  };
}

export type DeliveryCommand = ScheduleDelivery | RecordAttempt;

import type { DeliveryEventType } from '@upscaler/contracts';

/** Commands of a `delivery-…` stream: one webhook event to one endpoint, with its retries. */
export interface ScheduleDelivery {
  type: 'ScheduleDelivery';
  data: {
    deliveryId: string;
    endpointId: string;
    accountId: string;
    eventType: DeliveryEventType;
    /** null for a test event. */
    jobId: string | null;
    /** The exact JSON body signed and sent on every attempt. */
    body: string;
    now: string;
    /** The `webhook-id` of its attempts; default the delivery id (a re-delivery passes the original's). */
    messageId?: string;
    /** The delivery a re-delivery sends again. */
    redeliveryOf?: string | null;
  };
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

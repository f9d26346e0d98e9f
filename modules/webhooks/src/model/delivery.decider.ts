import { DomainError } from '@upscaler/contracts';
import { type DeliveryEvent, DELIVERY_EVENT_TYPES } from './webhook.events';
import { type Decider, addMs, canonicalInstant } from '@upscaler/domain';
import type { DeliveryCommand, RecordAttempt, ScheduleDelivery } from './delivery.commands';
import { initialDeliveryState, isFinalDeliveryStatus, type DeliveryOutcome, type DeliveryState } from './delivery.state';
import { DEFAULT_RETRY_SCHEDULE_MS, retryDelayMs } from './retry-schedule';

/**
 * One webhook delivery and its retries (docs/design.md §4). Outcome of each attempt:
 * - 2xx: succeeded (final);
 * - 410 Gone: endpoint_gone (final; the sender then disables the endpoint);
 * - anything else, or no answer: retrying after the schedule's next wait with ±10 % jitter, or
 *   abandoned (final) when the schedule is exhausted.
 * - `abandon` (endpoint disabled meanwhile) and no 2xx: abandoned (final).
 * No attempt is recorded after a final outcome.
 */
export const deliveryDecider: Decider<DeliveryState, DeliveryCommand, DeliveryEvent> = {
  eventTypes: DELIVERY_EVENT_TYPES,
  initialState: initialDeliveryState,
  decide,
  evolve,
};

function decide(command: DeliveryCommand, state: DeliveryState): DeliveryEvent[] {
  switch (command.type) {
    case 'ScheduleDelivery':
      return schedule(command, state);
    case 'RecordAttempt':
      return recordAttempt(command, state);
  }
}

function schedule({ data }: ScheduleDelivery, state: DeliveryState): DeliveryEvent[] {
  // The same job event consumed twice schedules one delivery (consumers are idempotent, docs/design.md §2).
  if (state.status !== 'none') return [];
  const { now, messageId, redeliveryOf, ...rest } = data;
  return [
    {
      type: 'DeliveryScheduled',
      data: { ...rest, scheduledAt: canonicalInstant(now), messageId: messageId ?? data.deliveryId, redeliveryOf: redeliveryOf ?? null },
    },
  ];
}

function recordAttempt({ data }: RecordAttempt, state: DeliveryState): DeliveryEvent[] {
  const delivery = state.delivery;
  if (state.status === 'none' || delivery === null) throw new DomainError('not_found', 'No such delivery.');
  if (isFinalDeliveryStatus(state.status)) {
    throw new DomainError('conflict', `Delivery ${delivery.deliveryId} already ended: ${state.status}.`);
  }
  if (!(data.jitter >= 0 && data.jitter < 1)) throw new DomainError('invalid_request', 'jitter must be in [0, 1).');
  if (!(data.durationMs >= 0)) throw new DomainError('invalid_request', 'durationMs must be >= 0.');
  if (data.statusCode !== null && !(Number.isInteger(data.statusCode) && data.statusCode >= 100 && data.statusCode <= 599)) {
    throw new DomainError('invalid_request', 'statusCode must be an HTTP status or null.');
  }
  const scheduleMs = data.schedule ?? DEFAULT_RETRY_SCHEDULE_MS;
  const attempt = state.attempts.length + 1;
  const now = canonicalInstant(data.now);
  let outcome: DeliveryOutcome;
  let nextAttemptAt: string | null = null;
  if (data.statusCode !== null && data.statusCode >= 200 && data.statusCode < 300) {
    outcome = 'succeeded';
  } else if (data.abandon) {
    outcome = 'abandoned';
  } else if (data.statusCode === 410) {
    outcome = 'endpoint_gone';
  } else {
    const delay = retryDelayMs(scheduleMs, attempt, data.jitter);
    if (delay === null) {
      outcome = 'abandoned';
    } else {
      outcome = 'retrying';
      nextAttemptAt = addMs(now, delay);
    }
  }
  return [
    {
      type: 'DeliveryAttempted',
      data: {
        deliveryId: delivery.deliveryId,
        endpointId: delivery.endpointId,
        attempt,
        statusCode: data.statusCode,
        error: data.error,
        attemptedAt: now,
        durationMs: Math.round(data.durationMs),
        outcome,
        nextAttemptAt,
      },
    },
  ];
}

function evolve(state: DeliveryState, event: DeliveryEvent): DeliveryState {
  switch (event.type) {
    case 'DeliveryScheduled':
      return { status: 'scheduled', delivery: event.data, attempts: [], nextAttemptAt: event.data.scheduledAt };
    case 'DeliveryAttempted':
      return {
        ...state,
        status: event.data.outcome,
        attempts: [...state.attempts, event.data],
        nextAttemptAt: event.data.nextAttemptAt,
      };
  }
}

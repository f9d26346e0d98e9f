/** The envelope of the event log (docs/design.md §2). `data` is versioned by `type` (suffix-free names, data v1). */
export interface EventMetadata {
  /** Id of the command/request that caused this event (e.g. the HTTP request id). */
  causationId?: string;
  /** Id shared by everything one user action set off (e.g. the job id). */
  correlationId?: string;
  /** W3C trace context, so one trace follows a job across services. */
  traceparent?: string;
  tracestate?: string;
  /** Which service appended it. */
  producer?: string;
}

/** What a decider returns and an append takes. */
export interface NewEvent<TType extends string = string, TData = unknown> {
  type: TType;
  data: TData;
  metadata?: EventMetadata;
}

/** An event as read back from the log. */
export interface StoredEvent<TType extends string = string, TData = unknown> {
  /** Global position in the log (1, 2, 3 … in commit order). */
  position: number;
  streamId: string;
  /** Position inside the stream: 1 for its first event. */
  version: number;
  type: TType;
  data: TData;
  metadata: EventMetadata;
  /** ISO 8601 UTC. */
  createdAt: string;
}

export const DATA_VERSION = 1;

/** Every `type` one stream family's events may have (a decider's `eventTypes`). */
export type EventTypes<E extends { type: string }> = readonly E['type'][];

/**
 * Events read back from the log as one stream family's domain events. A stored event's `type` is a
 * plain string once it has been through Postgres or Kafka; each one is checked against the family's
 * list here, the one place the log's events become typed, so no decider or projection ever folds an
 * event it does not know.
 */
export function asEvents<E extends { type: string; data: unknown }>(
  types: EventTypes<E>,
  events: readonly { type: string; data: unknown }[],
): E[] {
  for (const e of events) {
    if (!(types as readonly string[]).includes(e.type))
      throw new Error(`unexpected event type ${e.type} (want one of ${types.join(', ')})`);
  }
  // checked above, member by member
  return events as E[];
}

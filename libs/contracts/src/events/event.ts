/** The envelope of the event log (DESIGN 2). `data` is versioned by `type` (suffix-free names, data v1). */
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

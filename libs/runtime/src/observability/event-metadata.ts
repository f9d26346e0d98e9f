import type { EventMetadata } from '@upscaler/contracts';
import { currentTraceCarrier } from '@upscaler/tracing';

/** Metadata for events appended now: the active trace context (so the next service continues it). */
export function eventMetadata(producer: string, extra: Partial<EventMetadata> = {}): EventMetadata {
  return { ...currentTraceCarrier(), producer, ...extra };
}

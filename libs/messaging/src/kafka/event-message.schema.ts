import type { StoredEvent } from '@upscaler/contracts';
import { z } from 'zod';

/**
 * The value of every message on `upscale.<category>-events.v1`: one StoredEvent as JSON. Validated
 * on receipt (one schema per message kind) so a malformed message is named, not half-handled.
 */
export const EventMessageSchema = z.object({
  position: z.number().int().positive(),
  streamId: z.string().min(1),
  version: z.number().int().positive(),
  type: z.string().min(1),
  data: z.unknown(),
  metadata: z
    .object({
      causationId: z.string().optional(),
      correlationId: z.string().optional(),
      traceparent: z.string().optional(),
      tracestate: z.string().optional(),
      producer: z.string().optional(),
    })
    .passthrough(),
  createdAt: z.string().min(1),
});

export class InvalidMessageError extends Error {
  constructor(
    readonly topic: string,
    readonly detail: string,
  ) {
    super(`Invalid message on ${topic}: ${detail}`);
    this.name = 'InvalidMessageError';
  }
}

export function encodeEventMessage(event: StoredEvent): Buffer {
  return Buffer.from(JSON.stringify(event));
}

export function decodeEventMessage(topic: string, value: Buffer | null): StoredEvent {
  return parseJson(topic, value, EventMessageSchema) as StoredEvent;
}

export function parseJson<T>(topic: string, value: Buffer | null, schema: z.ZodType<T>): T {
  if (value === null) throw new InvalidMessageError(topic, 'empty value');
  let json: unknown;
  try {
    json = JSON.parse(value.toString('utf8'));
  } catch {
    throw new InvalidMessageError(topic, 'value is not JSON');
  }
  const parsed = schema.safeParse(json);
  if (!parsed.success) {
    throw new InvalidMessageError(topic, parsed.error.issues.map((i) => `${i.path.join('.') || '(root)'}: ${i.message}`).join('; '));
  }
  return parsed.data;
}

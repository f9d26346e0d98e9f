import {
  context,
  propagation,
  ROOT_CONTEXT,
  SpanKind,
  SpanStatusCode,
  trace,
  type Attributes,
  type Context,
  type Span,
} from '@opentelemetry/api';
import { suppressTracing } from '@opentelemetry/core';

/**
 * Trace context travels with the work: in event metadata (`traceparent`, `tracestate`),
 * in Kafka headers (the relay copies them), and in request/reply payloads. These helpers are no-ops
 * while tracing is off.
 */
export const tracer = trace.getTracer('upscaler');

export interface TraceCarrier {
  traceparent?: string;
  tracestate?: string;
}

/** The active context as W3C headers, to put into event metadata or a message. */
export function currentTraceCarrier(): TraceCarrier {
  const carrier: Record<string, string> = {};
  propagation.inject(context.active(), carrier);
  const out: TraceCarrier = {};
  if (carrier.traceparent) out.traceparent = carrier.traceparent;
  if (carrier.tracestate) out.tracestate = carrier.tracestate;
  return out;
}

export function contextFrom(carrier: TraceCarrier | undefined | null): Context {
  return carrier?.traceparent ? propagation.extract(ROOT_CONTEXT, carrier) : context.active();
}

/** The current trace id, for logs ('' when none). */
export function currentTraceId(): string {
  const span = trace.getSpan(context.active());
  return span?.spanContext().traceId ?? '';
}

/** Runs `fn` in a new span, child of `parent` (event metadata) or of the active span. */
export async function inSpan<T>(
  name: string,
  attributes: Attributes,
  parent: TraceCarrier | undefined | null,
  fn: () => Promise<T>,
): Promise<T> {
  return tracer.startActiveSpan(name, { attributes }, contextFrom(parent), async (span) => {
    try {
      return await fn();
    } catch (e) {
      span.recordException(e as Error);
      span.setStatus({ code: SpanStatusCode.ERROR, message: e instanceof Error ? e.message : String(e) });
      throw e;
    } finally {
      span.end();
    }
  });
}

/**
 * Runs `fn` with every instrumentation silenced: no spans, and no trace context injected. For a batched Kafka
 * send whose messages carry their own context (see `startProducerSpan`): the kafkajs instrumentation would make
 * each message a child of the batch's context and overwrite its `traceparent` header.
 */
export function untraced<T>(fn: () => T): T {
  return context.with(suppressTracing(context.active()), fn);
}

/**
 * A PRODUCER span for one message of a batch, child of the trace that made it (`parent`, e.g. an event's
 * metadata), and the W3C headers that carry that span to the consumers. Without a parent there is no span (a
 * background batch starts no trace of its own) and the headers are empty; while tracing is off, the headers are
 * the parent's own.
 */
export function startProducerSpan(
  name: string,
  attributes: Attributes,
  parent: TraceCarrier | undefined | null,
): { span: Span | undefined; headers: TraceCarrier } {
  if (!parent?.traceparent) return { span: undefined, headers: {} };
  const span = tracer.startSpan(name, { kind: SpanKind.PRODUCER, attributes }, contextFrom(parent));
  const carrier: Record<string, string> = {};
  propagation.inject(trace.setSpan(context.active(), span), carrier);
  if (!carrier.traceparent) {
    span.end();
    return {
      span: undefined,
      headers: { traceparent: parent.traceparent, ...(parent.tracestate ? { tracestate: parent.tracestate } : {}) },
    };
  }
  return { span, headers: { traceparent: carrier.traceparent, ...(carrier.tracestate ? { tracestate: carrier.tracestate } : {}) } };
}

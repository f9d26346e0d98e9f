import { context, propagation, ROOT_CONTEXT, SpanStatusCode, trace, type Attributes, type Context } from '@opentelemetry/api';

/**
 * Trace context travels with the work (issue 5): in event metadata (`traceparent`, `tracestate`),
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
export async function inSpan<T>(name: string, attributes: Attributes, parent: TraceCarrier | undefined | null, fn: () => Promise<T>): Promise<T> {
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

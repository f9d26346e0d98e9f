import { appendFileSync } from 'node:fs';
import { ExportResultCode, hrTimeToMilliseconds, type ExportResult } from '@opentelemetry/core';
import type { ReadableSpan, SpanExporter } from '@opentelemetry/sdk-trace-base';

/**
 * Writes each finished span as one JSON line (UPSCALE_TRACES_FILE). For local debugging and the
 * end-to-end trace test, where the service runs as a child process; production uses OTLP.
 */
export class FileSpanExporter implements SpanExporter {
  constructor(private readonly file: string) {}

  export(spans: ReadableSpan[], done: (result: ExportResult) => void): void {
    try {
      const lines = spans.map((s) =>
        JSON.stringify({
          traceId: s.spanContext().traceId,
          spanId: s.spanContext().spanId,
          parentSpanId: s.parentSpanContext?.spanId ?? null,
          name: s.name,
          kind: s.kind,
          service: s.resource.attributes['service.name'],
          attributes: s.attributes,
          // e.g. a Kafka consumer's per-message span links to the span that produced the message
          links: s.links.map((l) => ({ traceId: l.context.traceId, spanId: l.context.spanId })),
          startMs: hrTimeToMilliseconds(s.startTime),
          durationMs: hrTimeToMilliseconds(s.duration),
          status: s.status.code,
        }),
      );
      appendFileSync(this.file, lines.join('\n') + '\n');
      done({ code: ExportResultCode.SUCCESS });
    } catch (error) {
      done({ code: ExportResultCode.FAILED, error: error as Error });
    }
  }

  async shutdown(): Promise<void> {}
}

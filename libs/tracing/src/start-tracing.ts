import { NodeSDK } from '@opentelemetry/sdk-node';
import { HttpInstrumentation } from '@opentelemetry/instrumentation-http';
import { KafkaJsInstrumentation } from '@opentelemetry/instrumentation-kafkajs';
import { PgInstrumentation } from '@opentelemetry/instrumentation-pg';
import { OTLPTraceExporter } from '@opentelemetry/exporter-trace-otlp-http';
import { BatchSpanProcessor, SimpleSpanProcessor, type SpanProcessor } from '@opentelemetry/sdk-trace-base';
import { resourceFromAttributes } from '@opentelemetry/resources';
import { FileSpanExporter } from './file-span-exporter';

let sdk: NodeSDK | undefined;

/**
 * Starts OpenTelemetry for a service, before anything else is loaded: the instrumentations hook `require`, so
 * `http`, `pg` (node-postgres, under TypeORM) and `kafkajs` must be loaded after this (each service's main.ts
 * imports its tracing.ts first). Postgres queries and Kafka sends and receives become spans in the trace of the
 * request or event they serve. Exporters: OTLP/HTTP when OTEL_EXPORTER_OTLP_ENDPOINT (or ..._TRACES_ENDPOINT) is
 * set, JSON lines when UPSCALE_TRACES_FILE is set; otherwise tracing stays off (the API is a no-op).
 */
export function startTracing(service: string, env: NodeJS.ProcessEnv = process.env): boolean {
  if (sdk) return true;
  const processors: SpanProcessor[] = [];
  if (env.OTEL_EXPORTER_OTLP_ENDPOINT || env.OTEL_EXPORTER_OTLP_TRACES_ENDPOINT) {
    processors.push(new BatchSpanProcessor(new OTLPTraceExporter()));
  }
  if (env.UPSCALE_TRACES_FILE) processors.push(new SimpleSpanProcessor(new FileSpanExporter(env.UPSCALE_TRACES_FILE)));
  if (processors.length === 0 || env.OTEL_SDK_DISABLED === 'true') return false;
  sdk = new NodeSDK({
    resource: resourceFromAttributes({ 'service.name': env.OTEL_SERVICE_NAME ?? `upscaler-${service}` }),
    spanProcessors: processors,
    instrumentations: [
      new HttpInstrumentation({
        // health probes and scrapes would drown the traces that matter
        ignoreIncomingRequestHook: (req) => /^\/(health|metrics)/.test(req.url ?? ''),
      }),
      // Only queries made for something traced: the claim loop, the relay, the sweepers and the scrape-time gauges
      // poll all the time, and would each start a trace of one query per poll.
      new PgInstrumentation({ requireParentSpan: true }),
      new KafkaJsInstrumentation(),
    ],
  });
  sdk.start();
  return true;
}

export async function stopTracing(): Promise<void> {
  await sdk?.shutdown().catch(() => undefined);
  sdk = undefined;
}

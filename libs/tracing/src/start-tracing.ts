import { NodeSDK } from '@opentelemetry/sdk-node';
import { HttpInstrumentation } from '@opentelemetry/instrumentation-http';
import { OTLPTraceExporter } from '@opentelemetry/exporter-trace-otlp-http';
import { BatchSpanProcessor, SimpleSpanProcessor, type SpanProcessor } from '@opentelemetry/sdk-trace-base';
import { resourceFromAttributes } from '@opentelemetry/resources';
import { FileSpanExporter } from './file-span-exporter';

let sdk: NodeSDK | undefined;

/**
 * Starts OpenTelemetry for a service, before anything else is loaded (so that `http` is
 * instrumented). Exporters: OTLP/HTTP when OTEL_EXPORTER_OTLP_ENDPOINT (or ..._TRACES_ENDPOINT) is
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
    ],
  });
  sdk.start();
  return true;
}

export async function stopTracing(): Promise<void> {
  await sdk?.shutdown().catch(() => undefined);
  sdk = undefined;
}

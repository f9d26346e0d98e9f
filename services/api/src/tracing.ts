// Loaded first by main.ts, before anything requires `http`, so that OpenTelemetry can instrument it.
import { startTracing } from '@upscaler/tracing';

startTracing('api');

import type { INestApplication } from '@nestjs/common';
import type { NestExpressApplication } from '@nestjs/platform-express';
import { ErrorFilter, requestId } from '@upscaler/platform';
import type { Runtime } from './runtime';
import { httpMetrics } from './observability/http-metrics';

/** The HTTP setup every service shares: request ids, one error filter, JSON limits, no fingerprinting. */
export function configureHttpApp(app: INestApplication, rt: Runtime): void {
  const express = app as NestExpressApplication;
  express.disable('x-powered-by');
  express.set('trust proxy', true);
  app.use(requestId);
  app.use(httpMetrics(rt.metrics));
  app.useGlobalFilters(new ErrorFilter(rt.logger));
}

import type { INestApplication } from '@nestjs/common';
import type { NestExpressApplication } from '@nestjs/platform-express';
import type { NextFunction, Request, Response } from 'express';
import type { Server } from 'node:http';
import pino from 'pino';
import pinoHttp from 'pino-http';
import { ErrorFilter, requestId, type ErrorResponseHook } from '@upscaler/http-errors';
import type { Runtime } from './runtime';
import { installFastPaths, type FastPath } from './fast-path';
import { httpMetrics } from './observability/http-metrics';

/**
 * The HTTP setup every service shares: request ids, one error filter, JSON limits, no fingerprinting, trusted
 * proxies; and the service's fast paths (routes answered before Express, with the same request id, metrics and
 * request log).
 */
export function configureHttpApp(
  app: INestApplication,
  rt: Runtime,
  errorResponseHook?: ErrorResponseHook,
  fastPaths: FastPath[] = [],
): void {
  const express = app as NestExpressApplication;
  express.disable('x-powered-by');
  // Who may name the client's address in X-Forwarded-For (UPSCALE_TRUST_PROXY; default: loopback and private
  // ranges, where an ingress or a sidecar sits). A client cannot choose the address it is counted under.
  express.set('trust proxy', rt.config.trustProxy);
  // One JSON line per request, with its request id (and the trace id, through the logger's mixin), its status and
  // time (docs/operations.md "Logs"). Not the response's headers: on the polled GET /jobs/{id} writing them cost
  // more than answering (docs/benchmarks.md "API hot path").
  const requestLog = pinoHttp({
    logger: rt.logger,
    genReqId: (req) => String(req.headers['x-request-id'] ?? ''),
    autoLogging: { ignore: (req) => /^\/(health|metrics)/.test(req.url ?? '') },
    wrapSerializers: false,
    serializers: {
      req: (req: { id: string; method: string; url: string }) => ({ id: req.id, method: req.method, url: req.url }),
      res: (res: { statusCode: number }) => ({ statusCode: res.statusCode }),
      err: pino.stdSerializers.err,
    },
  });
  app.use(requestId);
  app.use(httpMetrics(rt.metrics));
  app.use(requestLog);
  app.useGlobalFilters(new ErrorFilter(rt.logger, errorResponseHook));

  const metricsByRoute = new Map(fastPaths.map((p) => [p.route, httpMetrics(rt.metrics, p.route)]));
  const next: NextFunction = () => undefined;
  installFastPaths(app.getHttpServer() as Server, fastPaths, (req, res, route) => {
    requestId(req as Request, res as Response, next);
    metricsByRoute.get(route)!(req as Request, res as Response, next);
    requestLog(req, res);
  });
}

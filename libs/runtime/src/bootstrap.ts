import 'reflect-metadata';
import { Module, type DynamicModule, type Type } from '@nestjs/common';
import { NestFactory } from '@nestjs/core';
import { ConfigError, createLogger, loadConfig, type AppConfig } from '@upscaler/config';
import { type ErrorResponseHook } from '@upscaler/http-errors';
import { currentTraceId, stopTracing } from '@upscaler/tracing';
import { buildRuntime } from './build-runtime';
import { configSectionsOf, type Capability } from './capability';
import type { FastPath } from './fast-path';
import { configureHttpApp } from './http-app';
import type { Runtime } from './runtime';
import { RuntimeModule } from './runtime.module';
import { NestPinoLogger } from './observability/nest-logger';

export interface ServiceSpec {
  service: string;
  /** Every capability of the system (@upscaler/capabilities): their migrations and read models (capability.ts). */
  capabilities: readonly Capability[];
  modules: Array<Type<unknown> | DynamicModule>;
  /** A provider of the service's modules that sees every error answer first (the api's unkeyed rate limit). */
  errorResponseHook?: Type<ErrorResponseHook>;
  /** Providers of the service's modules that answer a route before Express (the api's GET /jobs/{id}; fast-path.ts). */
  fastPaths?: Array<Type<FastPath>>;
  /** Adjust the validated config before anything starts (the standalone fills in its operator token). */
  prepare?: (config: AppConfig) => Promise<{ config: AppConfig; banner?: string[] }>;
}

/**
 * One start-up path for every service entry point (api, billing, processor, webhooks, standalone):
 * validated config, runtime adapters, Nest app with /health and the service's modules, HTTP on PORT,
 * graceful shutdown on SIGTERM/SIGINT within UPSCALE_SHUTDOWN_GRACE_MS.
 */
export async function runService(spec: ServiceSpec): Promise<void> {
  let config: AppConfig;
  try {
    config = loadConfig(process.env, configSectionsOf(spec.capabilities));
  } catch (e) {
    if (e instanceof ConfigError) {
      process.stderr.write(`${e.message}\n`);
      process.exit(2);
    }
    throw e;
  }
  const logger = createLogger(config.logLevel, spec.service, currentTraceId);
  const prepared = spec.prepare ? await spec.prepare(config) : { config };
  config = prepared.config;
  const rt: Runtime = await buildRuntime(config, logger, spec.service, spec.capabilities);

  @Module({ imports: [RuntimeModule.forRuntime(rt), ...spec.modules] })
  class ServiceRootModule {}

  const app = await NestFactory.create(ServiceRootModule, { logger: new NestPinoLogger(logger) });
  configureHttpApp(
    app,
    rt,
    spec.errorResponseHook ? app.get(spec.errorResponseHook, { strict: false }) : undefined,
    (spec.fastPaths ?? []).map((p) => app.get(p, { strict: false })),
  );
  const server = await app.listen(config.port, config.host);
  const address = server.address();
  const port = typeof address === 'object' && address ? address.port : config.port;
  const base = config.publicBaseUrl ?? `http://127.0.0.1:${port}`;
  logger.info({ service: spec.service, mode: rt.mode, port, baseUrl: `${base}/api/v1` }, 'ready');
  process.stdout.write(
    [`\n${spec.service} is running (${rt.mode}).`, `  Base URL:        ${base}/api/v1`, ...(prepared.banner ?? []), ''].join('\n') + '\n',
  );

  let closing = false;
  const shutdown = async (signal: string) => {
    if (closing) return;
    closing = true;
    logger.info({ signal }, 'shutting down');
    const force = setTimeout(() => {
      logger.error('shutdown took too long; exiting');
      process.exit(1);
    }, config.shutdownGraceMs + 15_000);
    force.unref();
    try {
      await app.close();
      await rt.close();
      await stopTracing();
    } finally {
      process.exit(0);
    }
  };
  process.on('SIGTERM', () => void shutdown('SIGTERM'));
  process.on('SIGINT', () => void shutdown('SIGINT'));
}

export function exitOnStartFailure(err: unknown): never {
  const e = err as { code?: unknown; port?: unknown; address?: unknown };
  if (e?.code === 'EADDRINUSE') {
    // The one start failure a new user meets most: say what to do, not a stack trace.
    process.stderr.write(
      `Failed to start: port ${String(e.port)} on ${String(e.address)} is already in use. ` +
        `Stop what listens there, or choose another port: PORT=${Number(e.port) + 1} npm start\n`,
    );
    process.exit(1);
  }
  process.stderr.write(`Failed to start: ${err instanceof Error ? (err.stack ?? err.message) : String(err)}\n`);
  process.exit(1);
}

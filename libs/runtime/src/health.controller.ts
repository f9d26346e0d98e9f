import { Controller, Get, Res } from '@nestjs/common';
import { HealthCheckService, HealthIndicatorService, type HealthIndicatorResult } from '@nestjs/terminus';
import type { Response } from 'express';
import { RETRY_AFTER_503_SECONDS } from '@upscaler/http-errors';
import { Readiness } from './readiness';

/**
 * Liveness (the process answers) and readiness (every dependency works: Postgres, storage, and Kafka
 * in distributed mode; and every consumer and loop the service runs), with @nestjs/terminus. Readiness goes down while a dependency is down and
 * comes back with it.
 */
@Controller('health')
export class HealthController {
  constructor(
    private readonly readiness: Readiness,
    private readonly health: HealthCheckService,
    private readonly indicators: HealthIndicatorService,
  ) {}

  @Get('live')
  live() {
    return { status: 'ok' };
  }

  @Get('ready')
  async ready(@Res() res: Response): Promise<void> {
    const checks = this.readiness.entries().map(([name, probe]) => async (): Promise<HealthIndicatorResult> => {
      const indicator = this.indicators.check(name);
      try {
        await withTimeout(probe(), 3000);
        return indicator.up();
      } catch (e) {
        return indicator.down({ message: e instanceof Error ? e.message : String(e) });
      }
    });
    try {
      res.status(200).json(await this.health.check(checks));
    } catch (e) {
      const body = (e as { getResponse?: () => unknown }).getResponse?.() ?? { status: 'error' };
      res.setHeader('Retry-After', String(RETRY_AFTER_503_SECONDS));
      res.status(503).json(body);
    }
  }
}

function withTimeout<T>(p: Promise<T>, ms: number): Promise<T> {
  return new Promise<T>((resolve, reject) => {
    const t = setTimeout(() => reject(new Error(`no answer within ${ms} ms`)), ms);
    p.then(
      (v) => (clearTimeout(t), resolve(v)),
      (e) => (clearTimeout(t), reject(e)),
    );
  });
}

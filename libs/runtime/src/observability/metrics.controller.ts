import { Controller, Get, Inject, Res } from '@nestjs/common';
import type { Response } from 'express';
import { RUNTIME } from '../tokens';
import type { Runtime } from '../runtime';

/** Prometheus scrape endpoint of every service. */
@Controller('metrics')
export class MetricsController {
  constructor(@Inject(RUNTIME) private readonly rt: Runtime) {}

  @Get()
  async scrape(@Res() res: Response): Promise<void> {
    res.setHeader('Content-Type', this.rt.metrics.registry.contentType);
    res.send(await this.rt.metrics.registry.metrics());
  }
}

import { Controller, Get, Res } from '@nestjs/common';
import type { Response } from 'express';
import { Metrics } from './metrics';

/** Prometheus scrape endpoint of every service. */
@Controller('metrics')
export class MetricsController {
  constructor(private readonly metrics: Metrics) {}

  @Get()
  async scrape(@Res() res: Response): Promise<void> {
    res.setHeader('Content-Type', this.metrics.registry.contentType);
    res.send(await this.metrics.registry.metrics());
  }
}

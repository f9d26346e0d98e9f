import type { NextFunction, Request, Response } from 'express';
import type { Metrics } from './metrics';

/**
 * Counts and times every HTTP request by route template (never the raw path: ids would explode cardinality).
 * `route`: the template of a route answered before Express (libs/runtime fast-path.ts), which sets no req.route.
 */
export function httpMetrics(metrics: Metrics, route?: string) {
  return (req: Request, res: Response, next: NextFunction): void => {
    const end = metrics.httpDuration.startTimer();
    res.on('finish', () => {
      const template = route ?? (req.route?.path ? `${req.baseUrl ?? ''}${String(req.route.path)}` : 'unmatched');
      const labels = { method: req.method, route: template, status: String(res.statusCode) };
      metrics.httpRequests.inc(labels);
      end(labels);
    });
    next();
  };
}

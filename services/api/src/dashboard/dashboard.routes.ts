import type { OpenAPIRegistry } from '@asteasolutions/zod-to-openapi';
import { headersFor, type Json } from '@upscaler/http-api';

/**
 * The account dashboard (docs/design.md §4; dashboard.controller.ts): a static page and its assets, no key,
 * no rate limit. Listed so that the document covers every route of the api.
 */
export function pageSecurityHeaders(policy: string): Json {
  return {
    'Content-Security-Policy': { required: true, schema: { type: 'string' }, description: policy },
    'X-Content-Type-Options': { required: true, schema: { type: 'string', const: 'nosniff' } },
    'Referrer-Policy': { required: true, schema: { type: 'string', const: 'no-referrer' } },
  };
}

/** One static page or asset answered with the pages' security headers. */
export function registerAsset(
  registry: OpenAPIRegistry,
  path: string,
  opts: { operationId: string; tag: string; summary: string; mediaType: string; description?: string; policy: string },
): void {
  registry.registerPath({
    method: 'get',
    path,
    operationId: opts.operationId,
    tags: [opts.tag],
    summary: opts.summary,
    // a static file of this service, no key; its caching and page-security headers are the 200's
    description: opts.description ?? `${opts.summary}: a static file of this service, served without a key (no 4xx to give).`,
    responses: {
      '200': {
        description: opts.summary,
        headers: headersFor('never', pageSecurityHeaders(opts.policy)),
        content: { [opts.mediaType]: { schema: { type: 'string' } } },
      },
    },
  });
}

export function registerDashboardRoutes(registry: OpenAPIRegistry): void {
  const asset = (path: string, operationId: string, summary: string, mediaType: string) =>
    registerAsset(registry, path, {
      operationId,
      tag: 'Dashboard',
      summary,
      mediaType,
      policy: "default-src 'self' and the rest: docs/api.md, Dashboard.",
    });
  asset('/dashboard', 'getDashboard', 'The account dashboard page', 'text/html');
  asset('/dashboard/app.js', 'getDashboardScript', "The dashboard's script", 'text/javascript');
  asset('/dashboard/app.css', 'getDashboardStyle', "The dashboard's stylesheet", 'text/css');
  asset('/dashboard/favicon.svg', 'getDashboardIcon', "The dashboard's icon", 'image/svg+xml');
}

import { defineEndpoint, headersFor, type EndpointDeclaration, type Json } from '@upscaler/http-api';

/**
 * The account dashboard (docs/design.md §4; dashboard.controller.ts): a static page and its assets, no key,
 * no rate limit. Declared so that the document covers every route of the api.
 */
export function pageSecurityHeaders(policy: string): Json {
  return {
    'Content-Security-Policy': { required: true, schema: { type: 'string' }, description: policy },
    'X-Content-Type-Options': { required: true, schema: { type: 'string', const: 'nosniff' } },
    'Referrer-Policy': { required: true, schema: { type: 'string', const: 'no-referrer' } },
  };
}

/** One static page or asset, answered without a key and with the pages' security headers. */
export function assetEndpoint(
  path: string,
  opts: { operationId: string; tag: string; summary: string; mediaType: string; description?: string; policy: string },
): EndpointDeclaration {
  return defineEndpoint({
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
    auth: 'public',
  });
}

const asset = (path: string, operationId: string, summary: string, mediaType: string) =>
  assetEndpoint(path, {
    operationId,
    tag: 'Dashboard',
    summary,
    mediaType,
    policy: "default-src 'self' and the rest: docs/api.md, Dashboard.",
  });

export const DASHBOARD_ENDPOINTS = {
  index: asset('/dashboard', 'getDashboard', 'The account dashboard page', 'text/html'),
  script: asset('/dashboard/app.js', 'getDashboardScript', "The dashboard's script", 'text/javascript'),
  style: asset('/dashboard/app.css', 'getDashboardStyle', "The dashboard's stylesheet", 'text/css'),
  icon: asset('/dashboard/favicon.svg', 'getDashboardIcon', "The dashboard's icon", 'image/svg+xml'),
};

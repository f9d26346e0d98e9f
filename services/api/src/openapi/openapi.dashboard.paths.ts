import { headersFor, type Json } from './openapi.common';

/**
 * The account dashboard (docs/design.md §4; dashboard/dashboard.controller.ts): a static page and its
 * assets, no key, no rate limit. Listed so that the document covers every route of the api.
 */
const SECURITY_HEADERS: Json = {
  'Content-Security-Policy': {
    required: true,
    schema: { type: 'string' },
    description: "default-src 'self' and the rest: docs/api.md, Dashboard.",
  },
  'X-Content-Type-Options': { required: true, schema: { type: 'string', const: 'nosniff' } },
  'Referrer-Policy': { required: true, schema: { type: 'string', const: 'no-referrer' } },
};

function asset(operationId: string, summary: string, mediaType: string): Json {
  return {
    get: {
      operationId,
      tags: ['Dashboard'],
      summary,
      responses: {
        '200': {
          description: summary,
          headers: headersFor('never', SECURITY_HEADERS),
          content: { [mediaType]: { schema: { type: 'string' } } },
        },
      },
    },
  };
}

export const dashboardPaths: Record<string, Json> = {
  '/dashboard': asset('getDashboard', 'The account dashboard page', 'text/html'),
  '/dashboard/app.js': asset('getDashboardScript', "The dashboard's script", 'text/javascript'),
  '/dashboard/app.css': asset('getDashboardStyle', "The dashboard's stylesheet", 'text/css'),
  '/dashboard/favicon.svg': asset('getDashboardIcon', "The dashboard's icon", 'image/svg+xml'),
};

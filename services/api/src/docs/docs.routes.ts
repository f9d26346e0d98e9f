import { assetEndpoint } from '../dashboard/dashboard.routes';

/** The API reference page (docs.controller.ts) in the document it renders. */
const asset = (path: string, operationId: string, summary: string, mediaType: string, description?: string) =>
  assetEndpoint(path, {
    operationId,
    tag: 'Meta',
    summary,
    mediaType,
    description,
    policy:
      "The dashboard's policy with img-src data: and without Trusted Types: docs/api.md, The OpenAPI document and the reference page.",
  });

export const DOCS_ENDPOINTS = {
  index: asset(
    '/docs',
    'getApiReference',
    'The API reference page',
    'text/html',
    'This document rendered by swagger-ui (served from the swagger-ui-dist package by this service). A reference only: it takes no key.',
  ),
  script: asset('/docs/swagger-ui-bundle.js', 'getApiReferenceScript', "swagger-ui's script", 'text/javascript'),
  style: asset('/docs/swagger-ui.css', 'getApiReferenceStyle', "swagger-ui's stylesheet", 'text/css'),
  start: asset('/docs/start.js', 'getApiReferenceStart', 'The script that renders this document', 'text/javascript'),
};

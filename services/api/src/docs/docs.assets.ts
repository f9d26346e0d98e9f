import { readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';

/**
 * The API reference page: static markup, swagger-ui's bundle and stylesheet from the swagger-ui-dist
 * package, and a small start script. No inline script or style (DOCS_CSP forbids both).
 */

export const DOCS_PAGE = `<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<meta name="referrer" content="no-referrer">
<title>API reference · Upscaler</title>
<link rel="icon" href="/dashboard/favicon.svg" type="image/svg+xml">
<link rel="stylesheet" href="/docs/swagger-ui.css">
<script src="/docs/swagger-ui-bundle.js" defer></script>
<script src="/docs/start.js" defer></script>
</head>
<body>
<noscript>The API reference needs JavaScript. The document itself: <a href="/api/v1/openapi.json">/api/v1/openapi.json</a>.</noscript>
<div id="swagger-ui"></div>
</body>
</html>
`;

/**
 * Renders this service's document. A reference only: "Try it out" is off (no API key is ever typed into
 * this page), and the online validator badge is off (it would send the document to validator.swagger.io).
 */
export const DOCS_START_JS = `'use strict';
window.addEventListener('DOMContentLoaded', function () {
  window.ui = SwaggerUIBundle({
    url: '/api/v1/openapi.json',
    dom_id: '#swagger-ui',
    deepLinking: true,
    validatorUrl: null,
    supportedSubmitMethods: [],
    defaultModelsExpandDepth: 0,
    presets: [SwaggerUIBundle.presets.apis],
    layout: 'BaseLayout',
  });
});
`;

/** A file of the swagger-ui-dist package, read once. */
export function swaggerUiAsset(name: 'swagger-ui-bundle.js' | 'swagger-ui.css'): string {
  const dir = dirname(require.resolve('swagger-ui-dist/package.json'));
  // The bundle's last line points DevTools at a source map this service does not serve.
  return readFileSync(join(dir, name), 'utf8').replace(/\n\/[/*]# sourceMappingURL=\S+(?: \*\/)?\s*$/, '\n');
}

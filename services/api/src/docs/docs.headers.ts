import { PAGE_HEADERS } from '@upscaler/http-api';

/**
 * Security headers of the API reference page (/docs) and its assets. The page renders
 * /api/v1/openapi.json with swagger-ui (swagger-ui-dist, served by this service from its npm package:
 * nothing comes from a CDN). It starts from the dashboard's policy (dashboard/dashboard.headers.ts) and
 * relaxes only what swagger-ui needs to render, each for a reason:
 * - img-src adds `data:`: swagger-ui's stylesheet draws its icons and the tag/expand arrows as data: URLs;
 * - no Trusted Types: swagger-ui (React) writes the document's Markdown descriptions through innerHTML
 *   after sanitising them with its own DOMPurify, which a policy-less `trusted-types` would refuse. The
 *   page takes no API key ("Try it out" is off: supportedSubmitMethods is empty), so it holds no secret
 *   that an injected script could steal, and scripts still come only from this origin.
 * Never 'unsafe-inline' or 'unsafe-eval': swagger-ui runs without either (docs.e2e-spec.ts checks the
 * browser reports no violation).
 */
export const DOCS_CSP = [
  "default-src 'self'",
  "script-src 'self'",
  "style-src 'self'",
  "img-src 'self' data:",
  "connect-src 'self'",
  "font-src 'self'",
  "object-src 'none'",
  "base-uri 'none'",
  "form-action 'none'",
  "frame-ancestors 'none'",
].join('; ');

export const DOCS_HEADERS: Readonly<Record<string, string>> = { 'Content-Security-Policy': DOCS_CSP, ...PAGE_HEADERS };

import { PAGE_HEADERS } from '@upscaler/http-api';

/**
 * Security headers of the dashboard's page and assets (docs/design.md §4: "account owners manage keys and
 * webhooks from the dashboard"). The page handles API keys, so it runs under a strict policy:
 * - scripts and styles only from this origin (served at /dashboard/app.js and /dashboard/app.css,
 *   never inline), so an injected string can never execute;
 * - fetch only to this origin, and in distributed mode to the object store's public origin (S3_PUBLIC_ENDPOINT),
 *   where the signed links of results and sources point: the page reads those files (without the key) for the
 *   before/after comparison. The key is never sent anywhere but this service's API;
 * - images from this origin (and the object store's, where the job list's thumbnail links point in distributed mode)
 *   and from blob: URLs only. blob: is the one relaxation of the page's original
 *   policy: the upscale form previews the user's own file from memory, and the before/after
 *   comparison shows the source and the result, fetched from this origin (connect-src 'self') and handed to
 *   <img> as object URLs. A blob: URL can only be made by a script of this page (script-src 'self'), so it
 *   adds no way in; data: and other origins stay refused;
 * - Trusted Types with no policy: any string written to an HTML sink (innerHTML…) throws, which
 *   enforces "every value from the api goes in with textContent" in the browser itself;
 * - form-action 'none': if the script fails to load, a form cannot submit the key into a URL;
 * - no framing (clickjacking), no referrer (signed download URLs stay private).
 */
export function dashboardCsp(storageOrigin: string | null = null): string {
  return [
    "default-src 'self'",
    "script-src 'self'",
    "style-src 'self'",
    storageOrigin ? `img-src 'self' blob: ${storageOrigin}` : "img-src 'self' blob:",
    storageOrigin ? `connect-src 'self' ${storageOrigin}` : "connect-src 'self'",
    "object-src 'none'",
    "base-uri 'none'",
    "form-action 'none'",
    "frame-ancestors 'none'",
    "require-trusted-types-for 'script'",
    'trusted-types',
  ].join('; ');
}

export const DASHBOARD_CSP = dashboardCsp();

/** The headers of every dashboard file; `storageOrigin`: the S3 public origin in distributed mode. */
export function dashboardHeaders(storageOrigin: string | null): Readonly<Record<string, string>> {
  return { ...DASHBOARD_HEADERS, 'Content-Security-Policy': dashboardCsp(storageOrigin) };
}

export const DASHBOARD_HEADERS: Readonly<Record<string, string>> = { 'Content-Security-Policy': DASHBOARD_CSP, ...PAGE_HEADERS };

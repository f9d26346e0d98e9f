/**
 * The headers of the api's own HTML pages and their assets (the dashboard, the API reference), beside each page's
 * Content-Security-Policy: no sniffing, no referrer, no framing, no cross-origin opener or embedding, and always
 * revalidated (the files change with each release; Express adds an ETag).
 */
export const PAGE_HEADERS: Readonly<Record<string, string>> = {
  'X-Content-Type-Options': 'nosniff',
  'Referrer-Policy': 'no-referrer',
  'X-Frame-Options': 'DENY',
  'Cross-Origin-Opener-Policy': 'same-origin',
  'Cross-Origin-Resource-Policy': 'same-origin',
  'Cache-Control': 'no-cache',
};

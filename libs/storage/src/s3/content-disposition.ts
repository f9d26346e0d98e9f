/**
 * `Content-Disposition: attachment` with the download name (RFC 6266): an ASCII fallback in
 * `filename` and the exact UTF-8 name in `filename*` (RFC 8187), so any name survives.
 */
export function attachmentDisposition(downloadName: string): string {
  const ascii = downloadName.replace(/[^\x20-\x7e]/g, '_').replace(/["\\]/g, '_');
  const encoded = encodeURIComponent(downloadName).replace(/['()*]/g, (c) => `%${c.charCodeAt(0).toString(16).toUpperCase()}`);
  return `attachment; filename="${ascii}"; filename*=UTF-8''${encoded}`;
}

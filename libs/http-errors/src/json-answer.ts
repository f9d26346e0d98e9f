import { createHash } from 'node:crypto';
import type { ServerResponse } from 'node:http';

/** Express's default ETag of a body (weak; `etag` package): length in hex and the SHA-1's first 27 base64 characters. */
export function weakEtag(body: string): string {
  const length = Buffer.byteLength(body, 'utf8');
  if (length === 0) return 'W/"0-2jmj7l5rSw0yVb/vWAYkK/YBwk"';
  return `W/"${length.toString(16)}-${createHash('sha1').update(body, 'utf8').digest('base64').substring(0, 27)}"`;
}

/**
 * Writes a JSON answer on Node's response as Express's `res.status(status).json(body)` does (Content-Type with
 * charset, Content-Length, weak ETag), for routes answered before Express (libs/runtime fast-path.ts). Headers
 * already set on `res` stay. Conditional requests are left to Express: the routes that use this decline them.
 */
export function sendJson(res: ServerResponse, status: number, body: unknown): void {
  const text = JSON.stringify(body);
  res.statusCode = status;
  res.setHeader('Content-Type', 'application/json; charset=utf-8');
  res.setHeader('Content-Length', Buffer.byteLength(text, 'utf8'));
  res.setHeader('ETag', weakEtag(text));
  res.end(text);
}

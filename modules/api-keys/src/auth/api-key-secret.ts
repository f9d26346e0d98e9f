import { createHash, randomBytes } from 'node:crypto';

/** Keys are `usk_` + 32 url-safe characters, shown once; only their SHA-256 is stored (docs/design.md §4). */
const KEY_PATTERN = /^usk_[A-Za-z0-9_-]{32}$/;

export function generateApiKey(): { key: string; hash: string; prefix: string } {
  const key = `usk_${randomBytes(24).toString('base64url')}`;
  return { key, hash: hashApiKey(key), prefix: key.slice(0, 12) };
}

export function hashApiKey(key: string): string {
  return createHash('sha256').update(key).digest('hex');
}

export function isWellFormedApiKey(key: string): boolean {
  return KEY_PATTERN.test(key);
}

/** The key of an `Authorization: Bearer usk_…` header; null when missing, not a bearer token, or malformed. */
export function bearerApiKey(header: unknown): string | null {
  const match = typeof header === 'string' ? /^Bearer\s+(\S+)\s*$/i.exec(header) : null;
  return match && isWellFormedApiKey(match[1]) ? match[1] : null;
}

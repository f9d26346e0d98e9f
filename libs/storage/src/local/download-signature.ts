import { createHmac, timingSafeEqual } from 'node:crypto';

/**
 * HMAC-SHA256 over `key \n expires \n name \n contentType` (hex). Everything that decides what the
 * download serves is signed: the object, until when, under which file name and content type.
 * Newlines (and other control characters) are refused in the signed fields so that no two
 * different field sets produce the same signed text.
 */
export interface SignedFields {
  key: string;
  /** Unix seconds. */
  expires: number;
  name: string;
  contentType: string;
}

const CONTROL = /[\u0000-\u001f\u007f]/;

export function hasControlCharacters(value: string): boolean {
  return CONTROL.test(value);
}

export function signDownload(secret: string | Buffer, f: SignedFields): string {
  return createHmac('sha256', secret).update(`${f.key}\n${f.expires}\n${f.name}\n${f.contentType}`).digest('hex');
}

/** Constant-time comparison of a presented hex signature with the expected one. */
export function verifyDownload(secret: string | Buffer, f: SignedFields, presented: string): boolean {
  if (!/^[0-9a-f]{64}$/.test(presented)) return false;
  return timingSafeEqual(Buffer.from(presented, 'hex'), Buffer.from(signDownload(secret, f), 'hex'));
}

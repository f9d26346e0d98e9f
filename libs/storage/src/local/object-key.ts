import path from 'node:path';

/**
 * Object keys are relative slash-separated names (`sources/job_…`, `results/job_….png`). Each
 * segment starts with a letter, digit or underscore, so `..`, `.` and hidden names cannot occur,
 * and no key can be absolute or climb out of the storage folder.
 */
const SEGMENT = /^[A-Za-z0-9_][A-Za-z0-9._-]*$/;
const MAX_KEY_LENGTH = 512;

export function isValidKey(key: string): boolean {
  return key.length > 0 && key.length <= MAX_KEY_LENGTH && key.split('/').every((s) => SEGMENT.test(s));
}

export function assertValidKey(key: string): void {
  if (!isValidKey(key)) throw new InvalidObjectKeyError(key);
}

/** The file for `key` under `root`; checked again after resolution, as a second line of defence. */
export function fileFor(root: string, key: string, suffix = ''): string {
  assertValidKey(key);
  const file = path.resolve(root, ...key.split('/')) + suffix;
  if (!file.startsWith(path.resolve(root) + path.sep)) throw new InvalidObjectKeyError(key);
  return file;
}

/** Each segment percent-encoded, slashes kept: the key as a URL path. */
export function encodeKeyPath(key: string): string {
  return key.split('/').map(encodeURIComponent).join('/');
}

export class InvalidObjectKeyError extends Error {
  constructor(readonly key: string) {
    super(`invalid object key ${JSON.stringify(key)}: want slash-separated segments of [A-Za-z0-9._-] not starting with "." or "-"`);
    this.name = 'InvalidObjectKeyError';
  }
}

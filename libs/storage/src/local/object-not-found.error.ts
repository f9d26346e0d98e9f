/** `get` of a key that holds no object. `code` matches what S3/MinIO report for the same case. */
export class ObjectNotFoundError extends Error {
  readonly code = 'NoSuchKey';
  constructor(readonly key: string) {
    super(`no object under key ${key}`);
    this.name = 'ObjectNotFoundError';
  }
}

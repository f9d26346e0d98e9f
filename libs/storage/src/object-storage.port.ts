import type { Readable } from 'node:stream';

/**
 * Object storage for sources and results (docs/design.md §3): a local folder with HMAC-signed URLs served by
 * the api (embedded), or MinIO/S3 with presigned URLs (distributed).
 */
export interface StoredObjectInfo {
  key: string;
  bytes: number;
  contentType: string;
}

export interface SignedUrlOptions {
  downloadName?: string;
  contentType?: string;
  signedAt?: Date;
}

export interface ObjectStorage {
  /** Creates the bucket/folder if missing. Called at start-up. */
  ensureReady(): Promise<void>;
  put(key: string, body: Buffer, contentType: string): Promise<StoredObjectInfo>;
  get(key: string): Promise<Buffer>;
  stat(key: string): Promise<StoredObjectInfo | null>;
  /** Removes the object; a key that is already gone is not an error (retention deletes may be repeated). */
  delete(key: string): Promise<void>;
  /**
   * An absolute URL that downloads the object (with `downloadName` as filename), valid for `ttlSeconds` from
   * `signedAt` (default now). A fixed `signedAt` makes the same URL for every call with it, which a browser caches.
   */
  signedUrl(key: string, ttlSeconds: number, opts?: SignedUrlOptions): Promise<string>;
  /** Health probe: resolves when the backend answers. */
  ping(): Promise<void>;
}

/** Local-folder storage also serves its signed URLs; the api mounts this handler. */
export interface SignedDownloadHandler {
  /** Validates signature/expiry of a request path+query; returns the stream or null when invalid/expired. */
  open(pathAndQuery: string): Promise<{ stream: Readable; bytes: number; contentType: string; downloadName?: string } | null>;
}

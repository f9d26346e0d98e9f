import { hostname } from 'node:os';
import { Client } from 'minio';
import type { ObjectStorage, SignedUrlOptions, StoredObjectInfo } from '../object-storage.port';
import { attachmentDisposition } from './content-disposition';
import { clientOptionsFor, DEFAULT_S3_REGION, type S3StorageOptions } from './s3-options';

const DEFAULT_CONTENT_TYPE = 'application/octet-stream';
/** S3 v4 presigned URLs live at most 7 days. */
const MAX_PRESIGN_SECONDS = 7 * 24 * 3600;

/**
 * Object storage on MinIO or any S3 (docs/design.md §3, distributed mode), through the `minio` client.
 * Downloads go straight from the storage to the user with presigned GET URLs.
 */
export class S3Storage implements ObjectStorage {
  private readonly client: Client;
  /** Signs URLs for the public address; it never sends a request (the region is fixed). */
  private readonly signer: Client;
  private readonly bucket: string;
  private readonly region: string;
  /** The readiness probe's object (see ping). */
  private readonly probeKey = `health/${hostname()}-${process.pid}`;

  constructor(opts: S3StorageOptions) {
    this.bucket = opts.bucket;
    this.region = opts.region ?? DEFAULT_S3_REGION;
    this.client = new Client(clientOptionsFor(opts.endpoint, opts));
    this.signer =
      opts.publicEndpoint && opts.publicEndpoint !== opts.endpoint ? new Client(clientOptionsFor(opts.publicEndpoint, opts)) : this.client;
  }

  async ensureReady(): Promise<void> {
    if (await this.client.bucketExists(this.bucket)) return;
    try {
      await this.client.makeBucket(this.bucket, this.region);
    } catch (err) {
      // Several replicas start at once: losing the race to create the bucket is fine.
      const code = (err as { code?: string }).code;
      if (code !== 'BucketAlreadyOwnedByYou' && code !== 'BucketAlreadyExists') throw err;
    }
  }

  async put(key: string, body: Buffer, contentType: string): Promise<StoredObjectInfo> {
    await this.client.putObject(this.bucket, key, body, body.length, { 'Content-Type': contentType });
    return { key, bytes: body.length, contentType };
  }

  async get(key: string): Promise<Buffer> {
    const stream = await this.client.getObject(this.bucket, key);
    const chunks: Buffer[] = [];
    for await (const chunk of stream) chunks.push(chunk as Buffer);
    return Buffer.concat(chunks);
  }

  /** S3 DeleteObject answers success for a missing key too. */
  async delete(key: string): Promise<void> {
    await this.client.removeObject(this.bucket, key);
  }

  async stat(key: string): Promise<StoredObjectInfo | null> {
    try {
      const info = await this.client.statObject(this.bucket, key);
      const meta = info.metaData as Record<string, string | undefined>;
      return { key, bytes: info.size, contentType: meta['content-type'] ?? DEFAULT_CONTENT_TYPE };
    } catch (err) {
      const code = (err as { code?: string }).code;
      if (code === 'NotFound' || code === 'NoSuchKey') return null;
      throw err;
    }
  }

  async signedUrl(key: string, ttlSeconds: number, opts: SignedUrlOptions = {}): Promise<string> {
    if (!Number.isInteger(ttlSeconds) || ttlSeconds < 1 || ttlSeconds > MAX_PRESIGN_SECONDS) {
      throw new RangeError(`ttlSeconds must be an integer from 1 to ${MAX_PRESIGN_SECONDS}, got ${ttlSeconds}`);
    }
    const respHeaders: Record<string, string> = {};
    if (opts.downloadName) respHeaders['response-content-disposition'] = attachmentDisposition(opts.downloadName);
    if (opts.contentType) respHeaders['response-content-type'] = opts.contentType;
    return this.signer.presignedGetObject(this.bucket, key, ttlSeconds, respHeaders, opts.signedAt);
  }

  /**
   * Readiness: a tiny object written (a round trip with valid credentials that MinIO refuses when its drives are
   * full or it lost write quorum), so storage that cannot take a result is seen before a job needs it. One key per
   * process, overwritten each time.
   */
  async ping(): Promise<void> {
    await this.client.putObject(this.bucket, this.probeKey, Buffer.from('1'), 1, { 'Content-Type': 'text/plain' });
  }
}

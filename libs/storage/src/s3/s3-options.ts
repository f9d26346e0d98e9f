import type { ClientOptions } from 'minio';

/** Settings of the S3/MinIO adapter (docs/design.md §6: S3_ENDPOINT, S3_PUBLIC_ENDPOINT, S3_ACCESS_KEY, S3_SECRET_KEY, S3_BUCKET). */
export interface S3StorageOptions {
  /** Where this service reaches the storage, e.g. `http://minio:9000`. */
  endpoint: string;
  /**
   * The address users follow for downloads, e.g. `https://files.example.com`. Presigned URLs are
   * signed for this host (the Host header is part of an S3 v4 signature), so they cannot simply be
   * rewritten after signing. Defaults to `endpoint`.
   */
  publicEndpoint?: string;
  accessKey: string;
  secretKey: string;
  bucket: string;
  /** Fixed so the client never has to ask the server for the bucket's region before signing. */
  region?: string;
}

export const DEFAULT_S3_REGION = 'us-east-1';

/** Turns an endpoint URL into minio client options; path-style addressing works with MinIO and most S3 clones. */
export function clientOptionsFor(endpointUrl: string, opts: S3StorageOptions): ClientOptions {
  let url: URL;
  try {
    url = new URL(endpointUrl);
  } catch {
    throw new Error(`S3 endpoint is not a URL: ${endpointUrl}`);
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:') {
    throw new Error(`S3 endpoint must be http(s): ${endpointUrl}`);
  }
  if (url.pathname !== '/' && url.pathname !== '') {
    // The minio client signs `/<bucket>/<key>` from the root; a path prefix would break every signature.
    throw new Error(`S3 endpoint must not have a path (${endpointUrl}); serve the storage at the root of its host`);
  }
  const useSSL = url.protocol === 'https:';
  return {
    endPoint: url.hostname.replace(/^\[(.*)\]$/, '$1'),
    port: url.port ? Number(url.port) : useSSL ? 443 : 80,
    useSSL,
    accessKey: opts.accessKey,
    secretKey: opts.secretKey,
    region: opts.region ?? DEFAULT_S3_REGION,
    pathStyle: true,
  };
}

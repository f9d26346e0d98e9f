import { randomBytes } from 'node:crypto';
import { promises as fs } from 'node:fs';
import path from 'node:path';
import type { Readable } from 'node:stream';
import type { ObjectStorage, SignedDownloadHandler, SignedUrlOptions, StoredObjectInfo } from '../object-storage.port';
import { hasControlCharacters, signDownload, verifyDownload } from './download-signature';
import { assertValidKey, encodeKeyPath, fileFor, isValidKey } from './object-key';
import { ObjectNotFoundError } from './object-not-found.error';

export interface LocalFolderStorageOptions {
  /** Root folder (the standalone uses `<data dir>/storage`). */
  dir: string;
  /** Absolute base of the api, e.g. `http://localhost:8080`; signed URLs start with it. */
  publicBaseUrl: string;
  /** HMAC key for download URLs (the standalone keeps it in `<data dir>/storage-secret`, see loadOrCreateSecret). */
  secret: string | Buffer;
  /** Path the api serves `open()` under. Default `/api/v1/files`. */
  routePrefix?: string;
  /** Clock in epoch ms (tests). */
  now?: () => number;
}

const DEFAULT_CONTENT_TYPE = 'application/octet-stream';
/** Same bound as S3 presigned URLs, so both modes accept the same TTLs. */
const MAX_TTL_SECONDS = 7 * 24 * 3600;

/**
 * Object storage in a local folder (docs/design.md §3, embedded mode), with HMAC-signed download URLs that
 * the api serves through `open()`. Layout: `<dir>/objects/<key>` holds the bytes,
 * `<dir>/meta/<key>.json` the content type, `<dir>/tmp/` the writes in progress. Every write goes to
 * a temp file that is fsynced and then renamed over the target, so a reader (or a crash) never sees
 * a half-written object.
 */
export class LocalFolderStorage implements ObjectStorage, SignedDownloadHandler {
  private readonly objects: string;
  private readonly meta: string;
  private readonly tmp: string;
  private readonly baseUrl: string;
  private readonly routePrefix: string;
  private readonly now: () => number;

  constructor(private readonly opts: LocalFolderStorageOptions) {
    const root = path.resolve(opts.dir);
    this.objects = path.join(root, 'objects');
    this.meta = path.join(root, 'meta');
    this.tmp = path.join(root, 'tmp');
    this.baseUrl = opts.publicBaseUrl.replace(/\/+$/, '');
    this.routePrefix = (opts.routePrefix ?? '/api/v1/files').replace(/\/+$/, '');
    this.now = opts.now ?? Date.now;
    if (Buffer.byteLength(opts.secret) < 16) throw new Error('LocalFolderStorage: the signing secret must have at least 16 bytes');
  }

  async ensureReady(): Promise<void> {
    await Promise.all([this.objects, this.meta, this.tmp].map((d) => fs.mkdir(d, { recursive: true })));
    // Leftovers of writes interrupted by a crash.
    for (const name of await fs.readdir(this.tmp)) await fs.rm(path.join(this.tmp, name), { force: true });
  }

  async put(key: string, body: Buffer, contentType: string): Promise<StoredObjectInfo> {
    assertValidKey(key);
    // Content type first: a crash between the two writes leaves metadata without an object (stat
    // says "missing"), never an object served with a stale type.
    const metaFile = fileFor(this.meta, key, '.json');
    await this.writeAtomically(metaFile, Buffer.from(JSON.stringify({ contentType })));
    try {
      await this.writeAtomically(fileFor(this.objects, key), body);
    } catch (err) {
      // A new object that could not be written (disk full) leaves no metadata either.
      if ((await this.stat(key).catch(() => null)) === null) await fs.rm(metaFile, { force: true }).catch(() => undefined);
      throw err;
    }
    return { key, bytes: body.length, contentType };
  }

  async get(key: string): Promise<Buffer> {
    try {
      return await fs.readFile(fileFor(this.objects, key));
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code === 'ENOENT') throw new ObjectNotFoundError(key);
      throw err;
    }
  }

  async delete(key: string): Promise<void> {
    assertValidKey(key);
    // The object first: a crash between the two leaves metadata without an object, which stat reads as missing.
    await fs.rm(fileFor(this.objects, key), { force: true });
    await fs.rm(fileFor(this.meta, key, '.json'), { force: true });
  }

  async stat(key: string): Promise<StoredObjectInfo | null> {
    try {
      const { size } = await fs.stat(fileFor(this.objects, key));
      return { key, bytes: size, contentType: await this.contentTypeOf(key) };
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code === 'ENOENT') return null;
      throw err;
    }
  }

  /**
   * `<publicBaseUrl><routePrefix>/<key>?expires=<unix s>[&name=<downloadName>][&type=<contentType>]&sig=<hex>`.
   * `type` appears only when `opts.contentType` overrides the stored content type.
   */
  async signedUrl(key: string, ttlSeconds: number, opts: SignedUrlOptions = {}): Promise<string> {
    assertValidKey(key);
    if (!Number.isInteger(ttlSeconds) || ttlSeconds < 1 || ttlSeconds > MAX_TTL_SECONDS) {
      throw new RangeError(`ttlSeconds must be an integer from 1 to ${MAX_TTL_SECONDS}, got ${ttlSeconds}`);
    }
    const name = opts.downloadName ?? '';
    const contentType = opts.contentType ?? '';
    if (hasControlCharacters(name) || hasControlCharacters(contentType)) {
      throw new Error('signedUrl: downloadName and contentType must not contain control characters');
    }
    const expires = Math.floor((opts.signedAt?.getTime() ?? this.now()) / 1000) + ttlSeconds;
    const query = new URLSearchParams({ expires: String(expires) });
    if (name) query.set('name', name);
    if (contentType) query.set('type', contentType);
    query.set('sig', signDownload(this.opts.secret, { key, expires, name, contentType }));
    return `${this.baseUrl}${this.routePrefix}/${encodeKeyPath(key)}?${query.toString()}`;
  }

  /**
   * Serves a signed URL (path and query as the api received them). Null when the path is not ours,
   * the signature does not match (any field changed), the link expired, or the object is gone.
   * The caller must consume or destroy the stream (it holds an open file).
   */
  async open(pathAndQuery: string): Promise<{ stream: Readable; bytes: number; contentType: string; downloadName?: string } | null> {
    let url: URL;
    let key: string;
    try {
      url = new URL(pathAndQuery, 'http://signed.local');
      if (!url.pathname.startsWith(`${this.routePrefix}/`)) return null;
      key = url.pathname
        .slice(this.routePrefix.length + 1)
        .split('/')
        .map(decodeURIComponent)
        .join('/');
    } catch {
      return null; // malformed URL or percent-encoding
    }
    if (!isValidKey(key)) return null;
    const expiresText = url.searchParams.get('expires') ?? '';
    const name = url.searchParams.get('name') ?? '';
    const contentType = url.searchParams.get('type') ?? '';
    const sig = url.searchParams.get('sig') ?? '';
    if (!/^\d{1,12}$/.test(expiresText) || hasControlCharacters(name) || hasControlCharacters(contentType)) return null;
    const expires = Number(expiresText);
    if (!verifyDownload(this.opts.secret, { key, expires, name, contentType }, sig)) return null;
    if (expires * 1000 <= this.now()) return null;

    // Open first, then size the open file: a concurrent overwrite (rename) cannot make the
    // announced length disagree with the bytes streamed.
    let handle: fs.FileHandle;
    try {
      handle = await fs.open(fileFor(this.objects, key), 'r');
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code === 'ENOENT') return null;
      throw err;
    }
    try {
      const { size } = await handle.stat();
      return {
        stream: handle.createReadStream(),
        bytes: size,
        contentType: contentType || (await this.contentTypeOf(key)),
        ...(name ? { downloadName: name } : {}),
      };
    } catch (err) {
      await handle.close();
      throw err;
    }
  }

  /** Readiness: a byte written, synced and removed, so a full or read-only disk is seen before a job needs it. */
  async ping(): Promise<void> {
    await fs.access(this.objects);
    const probe = path.join(this.tmp, `ready-${randomBytes(4).toString('hex')}.probe`);
    await this.writeAtomically(probe, Buffer.from('1'));
    await fs.rm(probe, { force: true });
  }

  private async contentTypeOf(key: string): Promise<string> {
    try {
      const { contentType } = JSON.parse(await fs.readFile(fileFor(this.meta, key, '.json'), 'utf8')) as { contentType?: string };
      return contentType || DEFAULT_CONTENT_TYPE;
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code === 'ENOENT') return DEFAULT_CONTENT_TYPE;
      throw err;
    }
  }

  private async writeAtomically(target: string, body: Buffer): Promise<void> {
    await fs.mkdir(path.dirname(target), { recursive: true });
    await fs.mkdir(this.tmp, { recursive: true });
    const temp = path.join(this.tmp, `${randomBytes(8).toString('hex')}.part`);
    try {
      const handle = await fs.open(temp, 'wx');
      try {
        await handle.writeFile(body);
        await handle.sync();
      } finally {
        await handle.close();
      }
      await fs.rename(temp, target);
    } catch (err) {
      // A write cut short (disk full, read-only, I/O error) leaves nothing behind: the space it took is free at once.
      await fs.rm(temp, { force: true }).catch(() => undefined);
      throw err;
    }
  }
}

import { createHmac } from 'node:crypto';
import { promises as fs } from 'node:fs';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import path from 'node:path';
import type { Readable } from 'node:stream';
import { InvalidObjectKeyError, LocalFolderStorage, ObjectNotFoundError } from '@upscaler/storage';
import { mountSmallDisk, describeWithSmallDisk, type SmallDisk } from '@upscaler/testing';

const SECRET = 'a-test-secret-of-enough-bytes-0123456789';
const NOW = 1_700_000_000_000; // ms

async function readAll(stream: Readable): Promise<Buffer> {
  const chunks: Buffer[] = [];
  for await (const c of stream) chunks.push(c as Buffer);
  return Buffer.concat(chunks);
}

describe('LocalFolderStorage', () => {
  let dir: string;
  let clock: number;
  let storage: LocalFolderStorage;

  beforeEach(async () => {
    dir = await fs.mkdtemp(path.join(tmpdir(), 'upscaler-storage-'));
    clock = NOW;
    storage = new LocalFolderStorage({ dir, publicBaseUrl: 'http://localhost:8080/', secret: SECRET, now: () => clock });
    await storage.ensureReady();
  });
  afterEach(async () => {
    await fs.rm(dir, { recursive: true, force: true });
  });

  it('stores bytes and content type, reads them back, and reports missing keys', async () => {
    const body = Buffer.from([0x89, 0x50, 0x4e, 0x47, 1, 2, 3]);
    expect(await storage.put('results/job_1.png', body, 'image/png')).toEqual({
      key: 'results/job_1.png',
      bytes: 7,
      contentType: 'image/png',
    });
    expect(await storage.get('results/job_1.png')).toEqual(body);
    expect(await storage.stat('results/job_1.png')).toEqual({ key: 'results/job_1.png', bytes: 7, contentType: 'image/png' });
    expect(await fs.readFile(path.join(dir, 'objects', 'results', 'job_1.png'))).toEqual(body);

    expect(await storage.stat('results/job_2.png')).toBeNull();
    await expect(storage.get('results/job_2.png')).rejects.toBeInstanceOf(ObjectNotFoundError);
    await expect(storage.get('results/job_2.png')).rejects.toMatchObject({ code: 'NoSuchKey', key: 'results/job_2.png' });
    await expect(storage.ping()).resolves.toBeUndefined();
  });

  it('delete removes the object and its metadata, and deleting a missing key again is no error', async () => {
    await storage.put('results/job_1', Buffer.alloc(10, 1), 'image/png');
    await storage.delete('results/job_1');
    expect(await storage.stat('results/job_1')).toBeNull();
    await expect(storage.get('results/job_1')).rejects.toBeInstanceOf(ObjectNotFoundError);
    expect(await fs.readdir(path.join(dir, 'objects', 'results'))).toEqual([]);
    expect(await fs.readdir(path.join(dir, 'meta', 'results'))).toEqual([]);
    await expect(storage.delete('results/job_1')).resolves.toBeUndefined();
  });

  it('an overwrite replaces bytes and type; writes leave no temp files behind', async () => {
    await storage.put('sources/job_1', Buffer.alloc(100, 1), 'image/jpeg');
    await storage.put('sources/job_1', Buffer.alloc(3, 2), 'image/webp');
    expect(await storage.stat('sources/job_1')).toEqual({ key: 'sources/job_1', bytes: 3, contentType: 'image/webp' });
    expect(await fs.readdir(path.join(dir, 'tmp'))).toEqual([]);
  });

  it('ensureReady removes writes a crash interrupted', async () => {
    await fs.writeFile(path.join(dir, 'tmp', 'deadbeef.part'), 'half');
    await storage.ensureReady();
    expect(await fs.readdir(path.join(dir, 'tmp'))).toEqual([]);
  });

  it.each(['../escape', '/etc/passwd', 'a/../../b', 'a//b', '', '.hidden', 'a/./b', 'a\\b', 'sources/', 'x\ny'])(
    'refuses the key %j',
    async (key) => {
      await expect(storage.put(key, Buffer.from('x'), 'text/plain')).rejects.toBeInstanceOf(InvalidObjectKeyError);
      await expect(storage.get(key)).rejects.toBeInstanceOf(InvalidObjectKeyError);
      await expect(storage.stat(key)).rejects.toBeInstanceOf(InvalidObjectKeyError);
      await expect(storage.signedUrl(key, 60)).rejects.toBeInstanceOf(InvalidObjectKeyError);
    },
  );

  it('signs key, expiry, download name and content type with HMAC-SHA256', async () => {
    const url = await storage.signedUrl('results/job_1.png', 600, { downloadName: 'holiday photo.png' });
    const sig = createHmac('sha256', SECRET).update('results/job_1.png\n1700000600\nholiday photo.png\n').digest('hex');
    expect(url).toBe(`http://localhost:8080/api/v1/files/results/job_1.png?expires=1700000600&name=holiday+photo.png&sig=${sig}`);
    await expect(storage.signedUrl('results/job_1.png', 0)).rejects.toThrow('ttlSeconds must be an integer from 1 to 604800, got 0');
  });

  it('open() serves a valid link with size, stored type and download name', async () => {
    await storage.put('results/job_1.png', Buffer.from('PNGDATA'), 'image/png');
    const url = new URL(await storage.signedUrl('results/job_1.png', 600, { downloadName: 'out.png' }));
    const opened = await storage.open(url.pathname + url.search);
    expect(opened).not.toBeNull();
    expect({ bytes: opened!.bytes, contentType: opened!.contentType, downloadName: opened!.downloadName }).toEqual({
      bytes: 7,
      contentType: 'image/png',
      downloadName: 'out.png',
    });
    expect((await readAll(opened!.stream)).toString()).toBe('PNGDATA');
  });

  it('a signed content type overrides the stored one; no name means no downloadName', async () => {
    await storage.put('results/job_2', Buffer.from('x'), 'application/octet-stream');
    const url = new URL(await storage.signedUrl('results/job_2', 60, { contentType: 'image/avif' }));
    expect(url.searchParams.get('type')).toBe('image/avif');
    const opened = await storage.open(url.pathname + url.search);
    expect(opened?.contentType).toBe('image/avif');
    expect(opened && 'downloadName' in opened).toBe(false);
    opened?.stream.destroy();
  });

  it('a link works until its expiry second and not from then on', async () => {
    await storage.put('results/job_3.png', Buffer.from('x'), 'image/png');
    const url = new URL(await storage.signedUrl('results/job_3.png', 60));
    const target = url.pathname + url.search;
    clock = NOW + 59_999;
    const lastMoment = await storage.open(target);
    expect(lastMoment?.bytes).toBe(1);
    lastMoment?.stream.destroy();
    clock = NOW + 60_000;
    expect(await storage.open(target)).toBeNull();
  });

  it('a link signed as of a given time: the same URL on every call, valid until that time plus the ttl', async () => {
    await storage.put('thumbs/job_3', Buffer.from('w'), 'image/webp');
    const signedAt = new Date(NOW - 120_000);
    const url = await storage.signedUrl('thumbs/job_3', 300, { contentType: 'image/webp', signedAt });
    clock = NOW + 5_000;
    expect(await storage.signedUrl('thumbs/job_3', 300, { contentType: 'image/webp', signedAt })).toBe(url);
    const target = new URL(url).pathname + new URL(url).search;
    clock = NOW + 179_999;
    const lastMoment = await storage.open(target);
    expect([lastMoment?.bytes, lastMoment?.contentType]).toEqual([1, 'image/webp']);
    lastMoment?.stream.destroy();
    clock = NOW + 180_000;
    expect(await storage.open(target)).toBeNull();
  });

  it('any change to a signed link makes it invalid', async () => {
    await storage.put('results/job_4.png', Buffer.from('x'), 'image/png');
    await storage.put('results/job_5.png', Buffer.from('y'), 'image/png');
    const url = new URL(await storage.signedUrl('results/job_4.png', 600, { downloadName: 'a.png' }));
    const good = url.pathname + url.search;
    const sig = url.searchParams.get('sig')!;
    const flipped = (sig[0] === 'a' ? 'b' : 'a') + sig.slice(1);
    const tampered = [
      good.replace(sig, flipped),
      good.replace('job_4', 'job_5'),
      good.replace('name=a.png', 'name=b.png'),
      good.replace('&name=a.png', ''),
      good.replace('expires=1700000600', 'expires=1700999999'),
      `${good}&type=text%2Fhtml`,
      good.replace(/&sig=[0-9a-f]+/, ''),
      good.replace('/api/v1/files/', '/api/v1/other/'),
      good.replace('results/job_4.png', 'results/%E0%A4%A.png'),
      good.replace('results/job_4.png', 'results/..%2F..%2Fjob_4.png'),
    ];
    for (const target of tampered) expect(await storage.open(target)).toBeNull();
    const other = new LocalFolderStorage({ dir, publicBaseUrl: 'http://localhost:8080', secret: `${SECRET}-other`, now: () => clock });
    expect(await other.open(good)).toBeNull();
    const ok = await storage.open(good);
    expect(ok?.bytes).toBe(1);
    ok?.stream.destroy();
  });

  it('a link to an object that is gone answers null', async () => {
    const url = new URL(await storage.signedUrl('results/never.png', 600));
    expect(await storage.open(url.pathname + url.search)).toBeNull();
  });

  it('serves the signed URL over real HTTP as the api mounts it', async () => {
    await storage.put('results/job_6.webp', Buffer.from('WEBPDATA'), 'image/webp');
    const serve = async (req: http.IncomingMessage, res: http.ServerResponse): Promise<void> => {
      const opened = await storage.open(req.url ?? '');
      if (!opened) {
        res.writeHead(403).end();
        return;
      }
      res.writeHead(200, { 'content-type': opened.contentType, 'content-length': opened.bytes });
      opened.stream.pipe(res);
    };
    const server = http.createServer((req, res) => void serve(req, res).catch(() => res.writeHead(500).end()));
    await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
    try {
      const { port } = server.address() as AddressInfo;
      const served = new LocalFolderStorage({ dir, publicBaseUrl: `http://127.0.0.1:${port}`, secret: SECRET, now: () => clock });
      clock = Date.now();
      const link = await served.signedUrl('results/job_6.webp', 60);
      const ok = await fetch(link);
      expect([ok.status, ok.headers.get('content-type'), await ok.text()]).toEqual([200, 'image/webp', 'WEBPDATA']);
      // Change the signature's first character to a different one (a fixed '0' is no change when it already is '0').
      const bad = await fetch(link.replace(/sig=(.)/, (_, c: string) => `sig=${c === '0' ? '1' : '0'}`));
      expect(bad.status).toBe(403);
      await bad.arrayBuffer();
    } finally {
      await new Promise((r) => server.close(r));
    }
  });
});

/** A full disk (a real tmpfs that fills up; root only, as CI runs): docs/runbooks.md "Storage full". */
const onSmallDisk = describeWithSmallDisk();
onSmallDisk('LocalFolderStorage on a disk that fills up', () => {
  let disk: SmallDisk;
  let storage: LocalFolderStorage;

  beforeEach(async () => {
    disk = await mountSmallDisk(2 * 1024 * 1024);
    storage = new LocalFolderStorage({ dir: disk.dir, publicBaseUrl: 'http://localhost:8080/', secret: SECRET });
    await storage.ensureReady();
  });
  afterEach(async () => {
    await disk.unmount();
  });

  it('a write on a full disk fails with ENOSPC and leaves no file; readiness fails; freed space is usable at once', async () => {
    await storage.put('sources/job_1', Buffer.alloc(100_000, 1), 'image/png');
    await disk.fill();
    await disk.free();
    // room for the metadata, not for the object: the metadata goes too
    await storage.put('sources/filler', Buffer.alloc(1_700_000, 3), 'image/png');
    await expect(storage.put('results/job_0', Buffer.alloc(500_000, 2), 'image/png')).rejects.toMatchObject({ code: 'ENOSPC' });
    await disk.fill();
    await expect(storage.put('results/job_1', Buffer.alloc(500_000, 2), 'image/png')).rejects.toMatchObject({ code: 'ENOSPC' });
    await expect(storage.ping()).rejects.toMatchObject({ code: 'ENOSPC' });
    // nothing half-written stays behind (no temp file, no object), the earlier object is intact
    expect((await disk.files()).filter((f) => !f.includes('filler')).sort()).toEqual(['meta/sources/job_1.json', 'objects/sources/job_1']);
    expect(await storage.stat('results/job_1')).toBeNull();
    await disk.free();
    await expect(storage.ping()).resolves.toBeUndefined();
    await storage.put('results/job_1', Buffer.alloc(200_000, 2), 'image/png');
    expect((await storage.get('results/job_1')).length).toBe(200_000);
  });
});

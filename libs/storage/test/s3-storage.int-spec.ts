import { randomBytes } from 'node:crypto';
import { request } from 'node:http';
import { S3Storage } from '@upscaler/storage';
import { Client } from 'minio';
import { startTestMinio, type TestMinio } from '../../testing/src/minio';

// Real MinIO (scripts/infra/start-minio.sh); its first build takes minutes, later runs are instant.
jest.setTimeout(120_000);

let minio: TestMinio;
let admin: Client;

function storage(bucket: string, extra: { publicEndpoint?: string; secretKey?: string } = {}): S3Storage {
  return new S3Storage({
    endpoint: minio.endpoint,
    publicEndpoint: extra.publicEndpoint,
    accessKey: minio.accessKey,
    secretKey: extra.secretKey ?? minio.secretKey,
    bucket,
  });
}

const bucketName = () => `test-${randomBytes(4).toString('hex')}`;

/** GET through loopback while presenting `host` (the public address a URL was signed for). */
function getWithHost(url: string, host: string): Promise<{ status: number; body: Buffer }> {
  const u = new URL(url);
  return new Promise((resolve, reject) => {
    const req = request({ host: '127.0.0.1', port: minio.port, path: `${u.pathname}${u.search}`, headers: { host } }, (res) => {
      const chunks: Buffer[] = [];
      res.on('data', (c: Buffer) => chunks.push(c));
      res.on('end', () => resolve({ status: res.statusCode ?? 0, body: Buffer.concat(chunks) }));
    });
    req.on('error', reject);
    req.end();
  });
}

beforeAll(async () => {
  minio = await startTestMinio();
  admin = new Client({ endPoint: '127.0.0.1', port: minio.port, useSSL: false, accessKey: minio.accessKey, secretKey: minio.secretKey });
}, 30 * 60_000);

afterAll(async () => {
  await minio?.dispose();
});

describe('S3Storage on MinIO', () => {
  it('creates its bucket at start-up when missing, and a second start-up is a no-op', async () => {
    const bucket = bucketName();
    expect(await admin.bucketExists(bucket)).toBe(false);
    const s = storage(bucket);
    await s.ensureReady();
    expect(await admin.bucketExists(bucket)).toBe(true);
    await s.ensureReady();
    await storage(bucket).ensureReady();
    expect(await admin.bucketExists(bucket)).toBe(true);
  });

  it('puts, stats and gets an object byte for byte; stat of a missing key is null', async () => {
    const s = storage(bucketName());
    await s.ensureReady();
    const body = randomBytes(300_001);
    expect(await s.put('results/job_1/out.png', body, 'image/png')).toEqual({
      key: 'results/job_1/out.png',
      bytes: 300_001,
      contentType: 'image/png',
    });
    expect(await s.stat('results/job_1/out.png')).toEqual({ key: 'results/job_1/out.png', bytes: 300_001, contentType: 'image/png' });
    expect((await s.get('results/job_1/out.png')).equals(body)).toBe(true);
    expect(await s.stat('results/job_1/missing.png')).toBeNull();
  });

  it('delete removes the object, and deleting a missing key again is no error', async () => {
    const s = storage(bucketName());
    await s.ensureReady();
    await s.put('results/job_1', randomBytes(1000), 'image/png');
    await s.delete('results/job_1');
    expect(await s.stat('results/job_1')).toBeNull();
    await expect(s.delete('results/job_1')).resolves.toBeUndefined();
  });

  it('a presigned URL downloads the exact bytes with the download name and content type', async () => {
    const s = storage(bucketName());
    await s.ensureReady();
    const body = randomBytes(65_536);
    await s.put('results/job_2/out', body, 'application/octet-stream');
    const url = await s.signedUrl('results/job_2/out', 60, { downloadName: 'photo 4k (1).png', contentType: 'image/png' });
    expect(url.startsWith(`${minio.endpoint}/`)).toBe(true);
    const res = await fetch(url);
    expect(res.status).toBe(200);
    expect(res.headers.get('content-type')).toBe('image/png');
    expect(res.headers.get('content-disposition')).toBe(
      `attachment; filename="photo 4k (1).png"; filename*=UTF-8''photo%204k%20%281%29.png`,
    );
    expect(Buffer.from(await res.arrayBuffer()).equals(body)).toBe(true);
  });

  it('a presigned URL stops working once its ttl has passed', async () => {
    const s = storage(bucketName());
    await s.ensureReady();
    await s.put('k', Buffer.from('secret'), 'text/plain');
    // X-Amz-Date has whole seconds, so a link may be up to a second older than the call that signed
    // it: a 1 s ttl could already be over at the first fetch. Wait for the signed expiry, not a guess.
    const url = await s.signedUrl('k', 3);
    expect((await fetch(url)).status).toBe(200);
    const params = new URL(url).searchParams;
    expect(params.get('X-Amz-Expires')).toBe('3');
    const signedAt = Date.parse(params.get('X-Amz-Date')!.replace(/^(\d{4})(\d\d)(\d\d)T(\d\d)(\d\d)(\d\d)Z$/, '$1-$2-$3T$4:$5:$6Z'));
    await new Promise((r) => setTimeout(r, Math.max(0, signedAt + 3_000 + 1_500 - Date.now())));
    const res = await fetch(url);
    expect(res.status).toBe(403);
    expect(await res.text()).toContain('<Code>AccessDenied</Code>');
  });

  it('a URL signed as of a given time is the same on every call, and valid until that time plus the ttl', async () => {
    const s = storage(bucketName());
    await s.ensureReady();
    await s.put('thumbs/job_1', Buffer.from('webp'), 'image/webp');
    // signed 8 s ago for 10 s: one call now and one a second later give the same link, which lapses 2 s from now
    const signedAt = new Date(Math.floor(Date.now() / 1000) * 1000 - 8_000);
    const url = await s.signedUrl('thumbs/job_1', 10, { contentType: 'image/webp', signedAt });
    await new Promise((r) => setTimeout(r, 1_000));
    expect(await s.signedUrl('thumbs/job_1', 10, { contentType: 'image/webp', signedAt })).toBe(url);
    const params = new URL(url).searchParams;
    expect([params.get('X-Amz-Date'), params.get('X-Amz-Expires')]).toEqual([
      signedAt
        .toISOString()
        .replace(/[-:]/g, '')
        .replace(/\.\d{3}/, ''),
      '10',
    ]);
    const res = await fetch(url);
    expect([res.status, res.headers.get('content-type'), await res.text()]).toEqual([200, 'image/webp', 'webp']);
    await new Promise((r) => setTimeout(r, Math.max(0, signedAt.getTime() + 10_000 + 1_500 - Date.now())));
    expect((await fetch(url)).status).toBe(403);
  });

  it('signs URLs for the public endpoint, which only work when reached under that host', async () => {
    const s = storage(bucketName(), { publicEndpoint: `http://files.upscaler.test:${minio.port}` });
    await s.ensureReady();
    await s.put('shared.bin', Buffer.from('public bytes'), 'application/octet-stream');
    const url = await s.signedUrl('shared.bin', 60);
    expect(url.startsWith(`http://files.upscaler.test:${minio.port}/`)).toBe(true);
    const viaPublicHost = await getWithHost(url, `files.upscaler.test:${minio.port}`);
    expect(viaPublicHost.status).toBe(200);
    expect(viaPublicHost.body.toString()).toBe('public bytes');
    // The host is part of the signature: the same URL presented to another host name is refused.
    const viaOtherHost = await getWithHost(url, `127.0.0.1:${minio.port}`);
    expect(viaOtherHost.status).toBe(403);
    expect(viaOtherHost.body.toString()).toContain('<Code>SignatureDoesNotMatch</Code>');
  });

  it('refuses a ttl outside 1 s .. 7 days', async () => {
    const s = storage(bucketName());
    await expect(s.signedUrl('k', 0)).rejects.toThrow('ttlSeconds must be an integer from 1 to 604800, got 0');
    await expect(s.signedUrl('k', 604_801)).rejects.toThrow('ttlSeconds must be an integer from 1 to 604800, got 604801');
  });

  it('ping writes: resolves against a healthy server, rejects with wrong credentials or without the bucket', async () => {
    const name = bucketName();
    const s = storage(name);
    await s.ensureReady();
    await expect(s.ping()).resolves.toBeUndefined();
    await expect(storage(name, { secretKey: 'wrong-secret-key' }).ping()).rejects.toThrow();
    await expect(storage(bucketName()).ping()).rejects.toMatchObject({ code: 'NoSuchBucket' });
  });
});

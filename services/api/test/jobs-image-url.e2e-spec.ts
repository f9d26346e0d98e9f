import type { ServerResponse } from 'node:http';
import { createTestCa, gradientImage, startHttpsServer, startTlsServer, type TestCa, type TestServer } from '@upscaler/testing';
import {
  CREATE_VIEW_FIELDS,
  ISO_UTC,
  JOB_ID,
  downloadResult,
  succeededResult,
  expectError,
  expectUncharged,
  ledger,
  newAccount,
  startJobsService,
  type JobsService,
} from './jobs-harness';
import { gifImage, padPngTo } from './jobs-images';

/**
 * Spec 4.1 B (JSON with image_url): the same size and format checks as an upload, after the fetch;
 * docs/design.md §4: HTTPS only, SSRF-guarded (loopback refused unless UPSCALE_ALLOW_PRIVATE_NETWORKS=true).
 */

const MiB = 1024 * 1024;
/** Far more than socket buffers hold: a stream this long only stops early if the service hangs up. */
const HUGE = 64 * MiB;

let ca: TestCa;
let images: TestServer;
let liar: TestServer;
let svc: JobsService;
let guarded: JobsService;
let cat: Buffer;
let exact: Buffer;
let gif: Buffer;
let tinyPng: Buffer;
let streamed: { written: number; closedEarly: boolean; done: Promise<void> };

function streamForever(res: ServerResponse, head: Buffer): void {
  let finish!: () => void;
  const state = {
    written: 0,
    closedEarly: false,
    done: new Promise<void>((r) => (finish = r)),
  };
  streamed = state;
  res.writeHead(200, { 'content-type': 'image/png' }); // no Content-Length: chunked
  res.write(head);
  const chunk = Buffer.alloc(64 * 1024, 7);
  const pump = (): void => {
    while (state.written < HUGE && !res.destroyed) {
      state.written += chunk.length;
      if (!res.write(chunk)) return void res.once('drain', pump);
    }
    if (!res.destroyed) res.end();
    finish();
  };
  res.on('close', () => {
    if (state.written < HUGE) state.closedEarly = true;
    finish();
  });
  pump();
}

beforeAll(async () => {
  ca = await createTestCa();
  cat = await gradientImage(24, 16);
  exact = padPngTo(await gradientImage(16, 16), 10 * MiB);
  gif = await gifImage();
  tinyPng = padPngTo(await gradientImage(4, 4), 200);
  images = await startHttpsServer((req, res) => {
    const path = (req.url ?? '').split('?')[0];
    if (path === '/cat.png' || path === '/photos/holiday%20cat.png') {
      return void res
        .writeHead(200, {
          'content-type': 'image/png',
          'content-length': cat.length,
        })
        .end(cat);
    }
    if (path === '/exact.png')
      return void res
        .writeHead(200, {
          'content-type': 'image/png',
          'content-length': exact.length,
        })
        .end(exact);
    if (path === '/declared-too-big.png') {
      res.writeHead(200, {
        'content-type': 'image/png',
        'content-length': 10 * MiB + 1,
      });
      return void res.end(padPngTo(cat, 10 * MiB + 1));
    }
    if (path === '/endless.png') return streamForever(res, cat.subarray(0, 64));
    if (path === '/anim.gif') return void res.writeHead(200, { 'content-type': 'image/png' }).end(gif);
    res.writeHead(404).end();
  }, ca);
  // Declares 200 bytes (a whole 4x4 PNG) and then keeps sending: the body is what was declared.
  liar = await startTlsServer((socket) => {
    socket.on('error', () => undefined);
    socket.once('data', () => {
      socket.write(`HTTP/1.1 200 OK\r\nContent-Type: image/png\r\nContent-Length: ${tinyPng.length}\r\n\r\n`);
      socket.write(tinyPng);
      const junk = Buffer.alloc(64 * 1024, 3);
      let sent = 0;
      const pump = (): void => {
        while (sent < 12 * MiB && !socket.destroyed) {
          sent += junk.length;
          if (!socket.write(junk)) return void socket.once('drain', pump);
        }
        if (!socket.destroyed) socket.end();
      };
      pump();
    });
  }, ca);
  const env = { NODE_EXTRA_CA_CERTS: ca.caPath };
  [svc, guarded] = await Promise.all([
    startJobsService({ ...env, UPSCALE_ALLOW_PRIVATE_NETWORKS: 'true' }),
    // the default: UPSCALE_ALLOW_PRIVATE_NETWORKS not set
    startJobsService(env),
  ]);
});

afterAll(async () => {
  await Promise.all([svc?.shutdown(), guarded?.shutdown()]);
  await Promise.all([images?.close(), liar?.close()]);
  ca?.cleanup();
});

describe('JSON body with image_url (spec 4.1 B)', () => {
  test('answers 202 with exactly the create view, with the given filename, target and credits', async () => {
    const acct = await newAccount(svc, { credits: 10 });
    const res = await acct.client.post('/upscale', {
      image_url: `${images.url}/cat.png`,
      target: '3k',
      format: 'webp',
      filename: 'my cat.png',
    });
    expect(res.status).toBe(202);
    expect(Object.keys(res.body).sort()).toEqual(CREATE_VIEW_FIELDS);
    expect(res.body).toEqual({
      id: expect.stringMatching(JOB_ID),
      object: 'job',
      status: 'queued',
      target: '3k',
      filename: 'my cat.png',
      credits: 6,
      source: { bytes: cat.length, content_type: 'image/png', width: 24, height: 16 },
      created_at: expect.stringMatching(ISO_UTC),
    });
    const l = await ledger(acct);
    expect({ balance: l.balance, held: l.reserved + l.charged }).toEqual({
      balance: 4,
      held: 6,
    });
  });

  test('the job succeeds with output = input x 3 in the requested format', async () => {
    const acct = await newAccount(svc, { credits: 10 });
    const res = await acct.client.post('/upscale', {
      image_url: `${images.url}/cat.png`,
      target: '3k',
      format: 'webp',
    });
    expect(res.status).toBe(202);
    const { file, meta } = await succeededResult(acct.client, res.body.id);
    expect(file.contentType).toBe('image/webp');
    expect({ format: meta.format, width: meta.width, height: meta.height }).toEqual({ format: 'webp', width: 72, height: 48 });
  });

  test('without filename, the job is named after the last segment of the URL path', async () => {
    const acct = await newAccount(svc, { credits: 10 });
    const res = await acct.client.post('/upscale', {
      image_url: `${images.url}/photos/holiday%20cat.png?size=large`,
    });
    expect(res.status).toBe(202);
    expect(res.body.filename).toBe('holiday cat.png');
  });

  test('unknown fields are tolerated (spec 9, rule 2)', async () => {
    const acct = await newAccount(svc, { credits: 10 });
    const res = await acct.client.post('/upscale', {
      image_url: `${images.url}/cat.png`,
      colour: 'blue',
      priority: 3,
    });
    expect(res.status).toBe(202);
  });

  test('no image_url: 400 invalid_request', async () => {
    const acct = await newAccount(svc, { credits: 10 });
    expectError(await acct.client.post('/upscale', { target: '2k' }), 400, 'invalid_request');
  });

  test.each(['http://127.0.0.1/cat.png', 'ftp://example.com/cat.png', 'not a url', 'https://user:pw@example.com/cat.png'])(
    'image_url %s: 400 invalid_image_url',
    async (url) => {
      const acct = await newAccount(svc, { credits: 10 });
      expectError(await acct.client.post('/upscale', { image_url: url }), 400, 'invalid_image_url');
      await expectUncharged(acct);
    },
  );

  test('target 5k in JSON: 400 invalid_target', async () => {
    const acct = await newAccount(svc, { credits: 10 });
    expectError(
      await acct.client.post('/upscale', {
        image_url: `${images.url}/cat.png`,
        target: '5k',
      }),
      400,
      'invalid_target',
    );
  });

  test('an image_url answering 404: 400 image_fetch_failed', async () => {
    const acct = await newAccount(svc, { credits: 10 });
    expectError(
      await acct.client.post('/upscale', {
        image_url: `${images.url}/missing.png`,
      }),
      400,
      'image_fetch_failed',
    );
  });

  test('the format is sniffed after the fetch: a GIF served as image/png answers 415 unsupported_media_type', async () => {
    const acct = await newAccount(svc, { credits: 10 });
    expectError(
      await acct.client.post('/upscale', {
        image_url: `${images.url}/anim.gif`,
      }),
      415,
      'unsupported_media_type',
    );
    await expectUncharged(acct);
  });
});

describe('size limit on fetched images (spec 4.1 B rule, spec 8)', () => {
  test('more than 10 MB streamed without Content-Length: 413 payload_too_large, and the service hangs up mid-stream', async () => {
    const acct = await newAccount(svc, { credits: 10 });
    const res = await acct.client.post('/upscale', {
      image_url: `${images.url}/endless.png`,
    });
    expectError(res, 413, 'payload_too_large');
    await streamed.done;
    expect(streamed.closedEarly).toBe(true);
    await expectUncharged(acct);
    expect((await acct.client.get('/jobs')).body.data).toEqual([]);
  });

  test('a declared Content-Length over 10 MiB: 413 payload_too_large', async () => {
    const acct = await newAccount(svc, { credits: 10 });
    expectError(
      await acct.client.post('/upscale', {
        image_url: `${images.url}/declared-too-big.png`,
      }),
      413,
      'payload_too_large',
    );
  });

  test('exactly 10 MiB by URL is accepted', async () => {
    const acct = await newAccount(svc, { credits: 10 });
    const res = await acct.client.post('/upscale', {
      image_url: `${images.url}/exact.png`,
    });
    expect(res.status).toBe(202);
    expect(res.body.source).toEqual({
      bytes: 10 * MiB,
      content_type: 'image/png',
      width: 16,
      height: 16,
    });
  });

  test('a Content-Length that lies low: the image is the declared bytes, never what follows them', async () => {
    const acct = await newAccount(svc, { credits: 10 });
    const res = await acct.client.post('/upscale', {
      image_url: `${liar.url}/liar.png`,
    });
    expect(res.status).toBe(202);
    expect(res.body.source).toEqual({
      bytes: tinyPng.length,
      content_type: 'image/png',
      width: 4,
      height: 4,
    });
    const source = await downloadResult(acct.client, res.body.id, '?asset=source');
    expect(source.bytes.equals(tinyPng)).toBe(true);
  });
});

describe('SSRF guard (docs/design.md §4): UPSCALE_ALLOW_PRIVATE_NETWORKS not set', () => {
  test.each([
    ['127.0.0.1', () => `${images.url}/cat.png`],
    ['localhost', () => `https://localhost:${images.port}/cat.png`],
    ['::1', () => `https://[::1]:${images.port}/cat.png`],
    ['::ffff:127.0.0.1 (IPv4-mapped)', () => `https://[::ffff:127.0.0.1]:${images.port}/cat.png`],
    ['127.1 (shorthand)', () => `https://127.1:${images.port}/cat.png`],
    ['2130706433 (decimal)', () => `https://2130706433:${images.port}/cat.png`],
    ['0.0.0.0', () => `https://0.0.0.0:${images.port}/cat.png`],
  ])('image_url to %s is refused with 400 invalid_image_url before any connection', async (_host, url) => {
    const acct = await newAccount(guarded, { credits: 10 });
    const before = images.connections();
    expectError(await acct.client.post('/upscale', { image_url: url() }), 400, 'invalid_image_url');
    expect(images.connections()).toBe(before);
    await expectUncharged(acct);
  });

  test('the same URL is fetched by a service started with UPSCALE_ALLOW_PRIVATE_NETWORKS=true', async () => {
    const acct = await newAccount(svc, { credits: 10 });
    expect(
      (
        await acct.client.post('/upscale', {
          image_url: `${images.url}/cat.png`,
        })
      ).status,
    ).toBe(202);
  });
});

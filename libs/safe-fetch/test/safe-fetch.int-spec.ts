import type { IncomingMessage, ServerResponse } from 'node:http';
import { DomainError } from '@upscaler/contracts';
import { createTestCa, startHttpsServer, startTlsServer, type TestCa, type TestServer } from '@upscaler/testing';
import { safeFetch, type SafeFetchOptions } from '../src/safe-fetch';

// docs/design.md §4 "Image by URL", spec 4.1 (image_url) and 8 (size limit), against real loopback HTTPS.
const MAX = 64 * 1024;
/** Far more than socket buffers hold: a stream this long only stops early if the client hangs up. */
const HUGE = 32 * 1024 * 1024;
const IMAGE = Buffer.from(Array.from({ length: 600 }, (_, i) => (i * 31) % 256));

let ca: TestCa;
let server: TestServer;
/** every request the server saw, in order: path and headers */
let seen: Array<{ path: string; headers: IncomingMessage['headers'] }>;
/** what the streaming routes managed to write before the client hung up */
let streamed: { written: number; finished: boolean; closed: Promise<void> };

function options(overrides: Partial<SafeFetchOptions> = {}): SafeFetchOptions {
  return { maxBytes: MAX, timeoutMs: 5000, maxRedirects: 3, allowPrivateNetworks: true, ca: ca.caCert, ...overrides };
}

async function fetchError(url: string, opts: SafeFetchOptions): Promise<DomainError> {
  const err = await safeFetch(url, opts).then(
    () => undefined,
    (e: unknown) => e,
  );
  if (!(err instanceof DomainError)) throw new Error(`expected a DomainError, got ${String(err)}`);
  return err;
}

/** Writes `total` bytes in 16 KiB chunks, respecting back-pressure, and records how far it got. */
function stream(res: ServerResponse, total: number): void {
  let resolveClosed!: () => void;
  streamed = { written: 0, finished: false, closed: new Promise((r) => (resolveClosed = r)) };
  const state = streamed;
  res.on('close', () => resolveClosed());
  const chunk = Buffer.alloc(16 * 1024, 7);
  const pump = (): void => {
    while (state.written < total && !res.destroyed) {
      state.written += chunk.length;
      if (!res.write(chunk)) return void res.once('drain', pump);
    }
    if (!res.destroyed) {
      state.finished = true;
      res.end();
    }
  };
  pump();
}

function route(req: IncomingMessage, res: ServerResponse): void {
  const url = new URL(req.url ?? '/', 'https://x');
  seen.push({ path: url.pathname + url.search, headers: req.headers });
  const hop = /^\/hop\/(\d+)$/.exec(url.pathname);
  if (hop) {
    const n = Number(hop[1]);
    if (n === 0) return void res.writeHead(200, { 'content-type': 'image/png' }).end(IMAGE);
    const status = Number(url.searchParams.get('status') ?? 302);
    return void res.writeHead(status, { location: `/hop/${n - 1}?status=${status}` }).end();
  }
  switch (url.pathname) {
    case '/image.png':
      return void res.writeHead(200, { 'content-type': 'image/png', 'content-length': IMAGE.length }).end(IMAGE);
    case '/redirect':
      return void res.writeHead(302, { location: url.searchParams.get('to') ?? '' }).end();
    case '/no-location':
      return void res.writeHead(302).end();
    case '/status':
      return void res.writeHead(Number(url.searchParams.get('code'))).end('nope');
    case '/exact':
      return void res.writeHead(200, { 'content-length': MAX }).end(Buffer.alloc(MAX, 1));
    case '/exact-chunked':
      res.writeHead(200, { 'content-type': 'image/jpeg' });
      return stream(res, MAX);
    case '/declared-too-large':
      return void res.writeHead(200, { 'content-length': MAX + 1 }).end(Buffer.alloc(MAX + 1, 1));
    case '/chunked-huge':
      res.writeHead(200, { 'content-type': 'image/png' }); // no Content-Length: chunked
      return stream(res, HUGE);
    case '/hang':
      return; // never answers
    case '/trickle':
      res.writeHead(200, { 'content-type': 'image/png' });
      res.write(Buffer.alloc(10));
      return; // and never more
  }
  res.writeHead(404).end();
}

beforeAll(async () => {
  ca = await createTestCa();
  server = await startHttpsServer(route, ca);
});
afterAll(async () => {
  await server.close();
  ca.cleanup();
});
beforeEach(() => {
  seen = [];
});

describe('safeFetch: the happy path', () => {
  test('fetches the image bytes, content type, status and final URL over https', async () => {
    const result = await safeFetch(`${server.url}/image.png`, options());
    expect(result).toEqual({ body: IMAGE, contentType: 'image/png', finalUrl: `${server.url}/image.png`, status: 200 });
    expect(seen).toHaveLength(1);
    expect(seen[0].headers['accept-encoding']).toBe('identity');
  });

  test('a hostname resolving to loopback is fetched when private networks are allowed', async () => {
    const result = await safeFetch(`https://localhost:${server.port}/image.png`, options());
    expect(result.body).toEqual(IMAGE);
    expect(result.finalUrl).toBe(`https://localhost:${server.port}/image.png`);
  });

  test('a certificate from an untrusted CA fails the fetch: TLS verification stays on', async () => {
    const err = await fetchError(`${server.url}/image.png`, options({ ca: undefined }));
    expect(err.code).toBe('image_fetch_failed');
    expect(err.details).toEqual({ cause: 'UNABLE_TO_VERIFY_LEAF_SIGNATURE' });
  });
});

describe('safeFetch: SSRF guard (UPSCALE_ALLOW_PRIVATE_NETWORKS off)', () => {
  const off = (): SafeFetchOptions => options({ allowPrivateNetworks: false });

  test('a loopback IP literal is refused with invalid_image_url before any connection', async () => {
    const before = server.connections();
    const err = await fetchError(`${server.url}/image.png`, off());
    expect(err.code).toBe('invalid_image_url');
    expect(err.message).toBe('image_url host 127.0.0.1 is not a public address.');
    expect(err.details).toEqual({ host: '127.0.0.1', address: '127.0.0.1', range: 'loopback' });
    expect(server.connections()).toBe(before);
  });

  test('a hostname whose DNS answer is 127.0.0.1 (localhost) is refused before any connection', async () => {
    const before = server.connections();
    const err = await fetchError(`https://localhost:${server.port}/image.png`, off());
    expect(err.code).toBe('invalid_image_url');
    expect(err.details).toEqual({ host: 'localhost', address: '127.0.0.1', range: 'loopback' });
    expect(server.connections()).toBe(before);
  });

  test.each([
    ['https://[::1]/', '::1', 'loopback'],
    ['https://[::ffff:127.0.0.1]/', '::ffff:7f00:1', 'ipv4Mapped>loopback'],
    ['https://169.254.169.254/latest/meta-data/', '169.254.169.254', 'linkLocal'],
    ['https://10.0.0.1/', '10.0.0.1', 'private'],
    ['https://0x7f.1/', '127.0.0.1', 'loopback'], // the URL parser normalizes the host first
  ])('%s is refused as %s', async (url, address, range) => {
    const err = await fetchError(url, off());
    expect(err.code).toBe('invalid_image_url');
    expect(err.details).toEqual({ host: address, address, range });
  });
});

describe('safeFetch: URL rules', () => {
  test.each([
    [`http://127.0.0.1/image.png`, 'image_url must use https, not http.'],
    ['ftp://example.com/a.png', 'image_url must use https, not ftp.'],
    ['file:///etc/passwd', 'image_url must use https, not file.'],
    ['https://user:secret@127.0.0.1/image.png', 'image_url must not carry credentials.'],
    ['https://user@127.0.0.1/image.png', 'image_url must not carry credentials.'],
    ['not a url', 'image_url is not a valid URL.'],
  ])('%s is refused: %s', async (url, message) => {
    const err = await fetchError(url, options());
    expect(err.code).toBe('invalid_image_url');
    expect(err.message).toBe(message);
  });

  test('http is refused even on the test server, which is never contacted', async () => {
    const before = server.connections();
    const err = await fetchError(`http://127.0.0.1:${server.port}/image.png`, options());
    expect(err.code).toBe('invalid_image_url');
    expect(server.connections()).toBe(before);
  });

  test('a host that does not resolve answers image_fetch_failed', async () => {
    const err = await fetchError('https://no-such-host.invalid/a.png', options());
    expect(err.code).toBe('image_fetch_failed');
    expect(err.message).toBe('The host of image_url could not be resolved.');
  });
});

describe('safeFetch: redirects', () => {
  test.each([301, 302, 303, 307, 308])('a %i redirect is followed, relative Location resolved', async (status) => {
    const result = await safeFetch(`${server.url}/hop/1?status=${status}`, options());
    expect(result.finalUrl).toBe(`${server.url}/hop/0?status=${status}`);
    expect(result.body).toEqual(IMAGE);
    expect(seen.map((s) => s.path)).toEqual([`/hop/1?status=${status}`, `/hop/0?status=${status}`]);
  });

  test('a chain of exactly maxRedirects is followed', async () => {
    const result = await safeFetch(`${server.url}/hop/3`, options({ maxRedirects: 3 }));
    expect(result.body).toEqual(IMAGE);
    expect(seen).toHaveLength(4);
  });

  test('one redirect more than maxRedirects answers image_fetch_failed without following it', async () => {
    const err = await fetchError(`${server.url}/hop/4`, options({ maxRedirects: 3 }));
    expect(err.code).toBe('image_fetch_failed');
    expect(err.message).toBe('image_url redirected more than 3 times.');
    expect(seen.map((s) => s.path)).toEqual(['/hop/4', '/hop/3?status=302', '/hop/2?status=302', '/hop/1?status=302']);
  });

  test('maxRedirects 0 follows none', async () => {
    const err = await fetchError(`${server.url}/hop/1`, options({ maxRedirects: 0 }));
    expect(err.message).toBe('image_url redirected more than 0 times.');
    expect(seen).toHaveLength(1);
  });

  test('a redirect to http is refused with invalid_image_url and not followed', async () => {
    const to = encodeURIComponent(`http://127.0.0.1:${server.port}/image.png`);
    const err = await fetchError(`${server.url}/redirect?to=${to}`, options());
    expect(err.code).toBe('invalid_image_url');
    expect(err.message).toBe('image_url redirected to a URL that must use https, not http.');
    expect(seen).toHaveLength(1);
  });

  test('a redirect to a URL with credentials is refused', async () => {
    const to = encodeURIComponent(`https://u:p@127.0.0.1:${server.port}/image.png`);
    const err = await fetchError(`${server.url}/redirect?to=${to}`, options());
    expect(err.message).toBe('image_url redirected to a URL that must not carry credentials.');
  });

  // The first hop is pinned by an exact allow-list entry; every other non-public address is refused.
  const pinned = (): SafeFetchOptions => options({ allowPrivateNetworks: false, allowAddresses: ['127.0.0.1'] });

  test('the pinned test server itself is fetched', async () => {
    expect((await safeFetch(`${server.url}/image.png`, pinned())).body).toEqual(IMAGE);
  });

  test.each([
    ['https://10.0.0.1/image.png', '10.0.0.1', 'private'],
    ['https://169.254.169.254/latest/meta-data/', '169.254.169.254', 'linkLocal'],
    ['https://127.0.0.2/image.png', '127.0.0.2', 'loopback'],
    ['https://[::1]/image.png', '::1', 'loopback'],
    ['https://100.64.0.1/image.png', '100.64.0.1', 'carrierGradeNat'],
  ])('a redirect to %s is re-checked and refused', async (to, address, range) => {
    const err = await fetchError(`${server.url}/redirect?to=${encodeURIComponent(to)}`, pinned());
    expect(err.code).toBe('invalid_image_url');
    expect(err.details).toEqual({ host: address, address, range });
    expect(seen).toHaveLength(1);
  });

  test('a redirect to a hostname is re-checked on every resolved address', async () => {
    // First hop: a server on ::1, pinned. Second hop: localhost, which resolves to 127.0.0.1,
    // not pinned: refused at DNS time, before connecting (uses IPv6 loopback).
    const v6 = await startHttpsServer(route, ca, { host: '::1' });
    try {
      const to = encodeURIComponent(`https://localhost:${server.port}/image.png`);
      const before = server.connections();
      const opts = options({ allowPrivateNetworks: false, allowAddresses: ['::1'] });
      const err = await fetchError(`${v6.url}/redirect?to=${to}`, opts);
      expect(err.code).toBe('invalid_image_url');
      expect(err.details).toEqual({ host: 'localhost', address: '127.0.0.1', range: 'loopback' });
      expect(seen.map((s) => s.path)).toEqual([`/redirect?to=${to}`]);
      expect(server.connections()).toBe(before);
    } finally {
      await v6.close();
    }
  });

  test('a redirect without Location answers image_fetch_failed', async () => {
    const err = await fetchError(`${server.url}/no-location`, options());
    expect(err.code).toBe('image_fetch_failed');
    expect(err.message).toBe('image_url answered HTTP 302 without a Location.');
  });

  test('credentials-bearing headers are dropped when a redirect changes origin, kept otherwise', async () => {
    const headers = { authorization: 'Bearer t', cookie: 'a=b', 'x-trace': '1' };
    const to = encodeURIComponent(`https://localhost:${server.port}/image.png`);
    await safeFetch(`${server.url}/redirect?to=${to}`, options({ headers }));
    expect(seen[0].headers).toMatchObject(headers);
    expect(seen[1].headers.authorization).toBeUndefined();
    expect(seen[1].headers.cookie).toBeUndefined();
    expect(seen[1].headers['x-trace']).toBe('1');
  });
});

describe('safeFetch: HTTP status', () => {
  test.each([404, 403, 500, 503, 304])('HTTP %i answers image_fetch_failed naming the status', async (code) => {
    const err = await fetchError(`${server.url}/status?code=${code}`, options());
    expect(err.code).toBe('image_fetch_failed');
    expect(err.message).toBe(`image_url answered HTTP ${code}.`);
    expect(err.details).toEqual({ status: code });
  });

  test('HTTP 204 is a success with an empty body (the format check downstream refuses it)', async () => {
    const result = await safeFetch(`${server.url}/status?code=204`, options());
    expect(result).toEqual({ body: Buffer.alloc(0), contentType: null, finalUrl: `${server.url}/status?code=204`, status: 204 });
  });
});

describe('safeFetch: size limit (spec 8)', () => {
  test('a body of exactly maxBytes is accepted (Content-Length)', async () => {
    const result = await safeFetch(`${server.url}/exact`, options());
    expect(result.body.length).toBe(MAX);
  });

  test('a chunked body of exactly maxBytes is accepted', async () => {
    const result = await safeFetch(`${server.url}/exact-chunked`, options());
    expect(result.body.length).toBe(MAX);
    expect(streamed.finished).toBe(true);
  });

  test('a declared Content-Length above maxBytes fails fast with payload_too_large', async () => {
    const err = await fetchError(`${server.url}/declared-too-large`, options());
    expect(err.code).toBe('payload_too_large');
    expect(err.status).toBe(413);
    expect(err.message).toBe(`The image at image_url is larger than ${MAX.toLocaleString('en-US')} bytes.`);
  });

  test('a chunked body without Content-Length is cut off mid-stream once past maxBytes', async () => {
    const err = await fetchError(`${server.url}/chunked-huge`, options());
    expect(err.code).toBe('payload_too_large');
    await streamed.closed;
    expect(streamed.finished).toBe(false);
    expect(streamed.written).toBeLessThan(HUGE);
  });

  describe('answers a normal server refuses to write (raw TLS)', () => {
    let raw: TestServer;
    let rawState: { written: number; closedEarly: boolean; done: Promise<void> };
    let mode: 'close-delimited' | 'lying-length' | 'short-body';

    beforeAll(async () => {
      raw = await startTlsServer((socket) => {
        let finish!: () => void;
        rawState = { written: 0, closedEarly: false, done: new Promise((r) => (finish = r)) };
        const state = rawState;
        socket.on('error', () => undefined);
        socket.once('data', () => {
          if (mode === 'short-body') {
            socket.end('HTTP/1.1 200 OK\r\nContent-Length: 1000\r\n\r\n' + 'x'.repeat(400));
            return finish();
          }
          const head =
            mode === 'lying-length'
              ? 'HTTP/1.1 200 OK\r\nContent-Type: image/png\r\nContent-Length: 100\r\n\r\n'
              : 'HTTP/1.1 200 OK\r\nContent-Type: image/png\r\nConnection: close\r\n\r\n';
          socket.write(head);
          const chunk = Buffer.alloc(16 * 1024, 9);
          const total = HUGE;
          const pump = (): void => {
            while (state.written < total && !socket.destroyed) {
              state.written += chunk.length;
              if (!socket.write(chunk)) return void socket.once('drain', pump);
            }
            if (!socket.destroyed) socket.end();
            finish();
          };
          socket.on('close', () => {
            if (state.written < total) state.closedEarly = true;
            finish();
          });
          pump();
        });
      }, ca);
    });
    afterAll(() => raw.close());

    test('a body delimited only by closing the connection is cut off once past maxBytes', async () => {
      mode = 'close-delimited';
      const err = await fetchError(`${raw.url}/big.png`, options());
      expect(err.code).toBe('payload_too_large');
      await rawState.done;
      expect(rawState.closedEarly).toBe(true);
    });

    test('a Content-Length that lies low yields exactly the declared bytes, never more', async () => {
      mode = 'lying-length';
      const result = await safeFetch(`${raw.url}/big.png`, options());
      expect(result.body).toEqual(Buffer.alloc(100, 9));
    });

    test('a body shorter than its Content-Length answers image_fetch_failed', async () => {
      mode = 'short-body';
      const err = await fetchError(`${raw.url}/short.png`, options());
      expect(err.code).toBe('image_fetch_failed');
    });
  });
});

describe('safeFetch: time limit', () => {
  test('a server that never answers fails with image_fetch_failed at the deadline', async () => {
    const err = await fetchError(`${server.url}/hang`, options({ timeoutMs: 300 }));
    expect(err.code).toBe('image_fetch_failed');
    expect(err.message).toBe('Fetching image_url timed out after 300 ms.');
  });

  test('a body that trickles forever fails at the deadline too (the deadline covers the body)', async () => {
    const err = await fetchError(`${server.url}/trickle`, options({ timeoutMs: 300 }));
    expect(err.code).toBe('image_fetch_failed');
    expect(err.message).toBe('Fetching image_url timed out after 300 ms.');
  });
});

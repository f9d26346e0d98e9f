import type { IncomingMessage, ServerResponse } from 'node:http';
import { createTestCa, startHttpsServer, type TestCa, type TestServer } from '@upscaler/testing';
import { sendWebhook, WEBHOOK_RESPONSE_CAP_BYTES, type SendWebhookOptions } from '../src/workers/webhook-sender';
import { generateWebhookSecret, signWebhook, verifyWebhook } from '../src/signing/webhook-signing';

// docs/design.md §4 "Webhooks" and 6 (signed HTTPS POST), against a real loopback HTTPS receiver.
let ca: TestCa;
let server: TestServer;
let received: Array<{ method: string; path: string; headers: IncomingMessage['headers']; body: string }>;
/** how much of the huge answer the receiver got written before we hung up */
let hugeAnswer: { written: number; closed: Promise<void> };
const HUGE = 32 * 1024 * 1024;

function options(overrides: Partial<SendWebhookOptions> = {}): SendWebhookOptions {
  return { timeoutMs: 5000, allowPrivateNetworks: true, ca: ca.caCert, ...overrides };
}

function receive(req: IncomingMessage, res: ServerResponse): void {
  const chunks: Buffer[] = [];
  req.on('data', (c: Buffer) => chunks.push(c));
  req.on('end', () => {
    const path = req.url ?? '/';
    received.push({ method: req.method ?? '', path, headers: req.headers, body: Buffer.concat(chunks).toString() });
    if (path === '/hang') return;
    if (path === '/moved') return void res.writeHead(301, { location: '/ok' }).end();
    if (path === '/huge-answer') {
      let done!: () => void;
      hugeAnswer = { written: 0, closed: new Promise((r) => (done = r)) };
      const state = hugeAnswer;
      res.on('close', () => done());
      res.writeHead(200);
      const chunk = Buffer.alloc(16 * 1024, 1);
      const pump = (): void => {
        while (state.written < HUGE && !res.destroyed) {
          state.written += chunk.length;
          if (!res.write(chunk)) return void res.once('drain', pump);
        }
        if (!res.destroyed) res.end();
      };
      return pump();
    }
    const status = Number(/^\/status\/(\d+)$/.exec(path)?.[1] ?? 200);
    res.writeHead(status, { 'content-type': 'text/plain' }).end('thanks');
  });
}

beforeAll(async () => {
  ca = await createTestCa();
  server = await startHttpsServer(receive, ca);
});
afterAll(async () => {
  await server.close();
  ca.cleanup();
});
beforeEach(() => {
  received = [];
});

const BODY = JSON.stringify({ type: 'job.succeeded', timestamp: '2025-01-02T03:04:05.000Z', data: { id: 'job_1' } });

describe('sendWebhook', () => {
  test('a 2xx answer is a successful attempt; the receiver gets the exact signed body', async () => {
    const secret = generateWebhookSecret();
    const headers = signWebhook(secret, 'evt_1', new Date(), BODY);
    const attempt = await sendWebhook(`${server.url}/ok`, headers, BODY, options());
    expect(attempt.statusCode).toBe(200);
    expect(attempt.error).toBeNull();
    expect(attempt.durationMs).toBeGreaterThan(0);
    expect(received).toHaveLength(1);
    const got = received[0];
    expect(got.method).toBe('POST');
    expect(got.body).toBe(BODY);
    expect(got.headers['content-type']).toBe('application/json');
    expect(got.headers['content-length']).toBe(String(Buffer.byteLength(BODY)));
    expect(got.headers['webhook-id']).toBe('evt_1');
    expect(verifyWebhook(secret, got.headers as Record<string, string>, got.body)).toBe(true);
  });

  test('a 500 answer is a failed attempt with its status', async () => {
    const attempt = await sendWebhook(`${server.url}/status/500`, {}, BODY, options());
    expect(attempt).toEqual({ statusCode: 500, error: 'HTTP 500', durationMs: attempt.durationMs });
  });

  test('a 410 answer is a failed attempt reporting 410 (the scheduler disables the endpoint)', async () => {
    const attempt = await sendWebhook(`${server.url}/status/410`, {}, BODY, options());
    expect(attempt).toEqual({ statusCode: 410, error: 'HTTP 410', durationMs: attempt.durationMs });
  });

  test('a 204 answer is a success', async () => {
    const attempt = await sendWebhook(`${server.url}/status/204`, {}, BODY, options());
    expect(attempt).toEqual({ statusCode: 204, error: null, durationMs: attempt.durationMs });
  });

  test('a redirect is not followed: the attempt fails with the 3xx status', async () => {
    const attempt = await sendWebhook(`${server.url}/moved`, {}, BODY, options());
    expect(attempt).toEqual({
      statusCode: 301,
      error: 'HTTP 301: redirects are not followed',
      durationMs: attempt.durationMs,
    });
    expect(received.map((r) => r.path)).toEqual(['/moved']);
  });

  test('a receiver that never answers fails the attempt at the deadline', async () => {
    const attempt = await sendWebhook(`${server.url}/hang`, {}, BODY, options({ timeoutMs: 300 }));
    expect(attempt).toEqual({ statusCode: null, error: 'timed out after 300 ms', durationMs: attempt.durationMs });
  });

  test('a refused connection fails the attempt with ECONNREFUSED', async () => {
    const closed = await startHttpsServer(receive, ca);
    await closed.close(); // its port is now free: nothing listens there
    const attempt = await sendWebhook(`${closed.url}/ok`, {}, BODY, options());
    expect(attempt.statusCode).toBeNull();
    expect(attempt.error).toBe('ECONNREFUSED: the connection was refused');
  });

  test('a connection failure to a name does not tell which address the name resolved to (delivery log)', async () => {
    const closed = await startHttpsServer(receive, ca);
    await closed.close();
    const attempt = await sendWebhook(`https://localhost:${closed.port}/ok`, {}, BODY, options());
    expect([attempt.statusCode, attempt.error]).toEqual([null, 'ECONNREFUSED: the connection was refused']);
  });

  test('a huge answer body is read only up to the cap, then the connection is dropped', async () => {
    const attempt = await sendWebhook(`${server.url}/huge-answer`, {}, BODY, options());
    expect(attempt).toEqual({ statusCode: 200, error: null, durationMs: attempt.durationMs });
    await hugeAnswer.closed;
    expect(hugeAnswer.written).toBeGreaterThan(WEBHOOK_RESPONSE_CAP_BYTES);
    expect(hugeAnswer.written).toBeLessThan(HUGE);
  });

  test('a loopback receiver is refused when private networks are not allowed, before connecting', async () => {
    const before = server.connections();
    const byIp = await sendWebhook(`${server.url}/ok`, {}, BODY, options({ allowPrivateNetworks: false }));
    expect(byIp).toEqual({
      statusCode: null,
      error: 'refused: 127.0.0.1 (loopback) is not a public address',
      durationMs: byIp.durationMs,
    });
    const byName = await sendWebhook(`https://localhost:${server.port}/ok`, {}, BODY, options({ allowPrivateNetworks: false }));
    // The delivery log is shown to the account: it names the host it was given, never the address a name resolved to.
    expect(byName.error).toBe('refused: localhost resolves to a non-public address');
    expect(server.connections()).toBe(before);
  });

  test('an http URL is refused without a request', async () => {
    const attempt = await sendWebhook(`http://127.0.0.1:${server.port}/ok`, {}, BODY, options());
    expect(attempt).toEqual({ statusCode: null, error: 'webhook URL must use https, not http', durationMs: attempt.durationMs });
    expect(received).toHaveLength(0);
  });

  test('an untrusted certificate fails the attempt', async () => {
    const attempt = await sendWebhook(`${server.url}/ok`, {}, BODY, options({ ca: undefined }));
    expect(attempt.statusCode).toBeNull();
    expect(attempt.error).toBe('UNABLE_TO_VERIFY_LEAF_SIGNATURE: unable to verify the first certificate');
  });
});

import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import type { IncomingMessage, ServerResponse } from 'node:http';
import { createServer as createHttpsServer } from 'node:https';
import type { AddressInfo, Socket } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createServer as createTlsServer, type TLSSocket } from 'node:tls';
import { generate } from 'selfsigned';

/** A throw-away CA and a server certificate it signed, for loopback HTTPS in tests. */
export interface TestCa {
  /** CA certificate (PEM): pass as `ca` in process, or caPath as NODE_EXTRA_CA_CERTS to a child */
  caCert: string;
  /** path of a temp file holding caCert */
  caPath: string;
  /** server certificate for localhost, 127.0.0.1 and ::1 (PEM) */
  cert: string;
  /** its private key (PEM) */
  key: string;
  /** removes the temp directory holding caPath */
  cleanup(): void;
}

/** Makes a CA and a server certificate it signs (EC P-256: fast to generate, ten-minute-old dates). */
export async function createTestCa(): Promise<TestCa> {
  const notBeforeDate = new Date(Date.now() - 10 * 60_000);
  const notAfterDate = new Date(Date.now() + 24 * 3600_000);
  const ca = await generate([{ name: 'commonName', value: 'upscaler test CA' }], {
    keyType: 'ec',
    algorithm: 'sha256',
    notBeforeDate,
    notAfterDate,
    extensions: [
      { name: 'basicConstraints', cA: true, critical: true },
      { name: 'keyUsage', keyCertSign: true, cRLSign: true, digitalSignature: true, critical: true },
    ],
  });
  const server = await generate([{ name: 'commonName', value: 'localhost' }], {
    keyType: 'ec',
    algorithm: 'sha256',
    notBeforeDate,
    notAfterDate,
    ca: { key: ca.private, cert: ca.cert },
    extensions: [
      { name: 'basicConstraints', cA: false, critical: true },
      { name: 'keyUsage', digitalSignature: true, keyEncipherment: true, critical: true },
      { name: 'extKeyUsage', serverAuth: true },
      {
        name: 'subjectAltName',
        altNames: [
          { type: 2, value: 'localhost' },
          { type: 7, ip: '127.0.0.1' },
          { type: 7, ip: '::1' },
        ],
      },
    ],
  });
  const dir = mkdtempSync(join(tmpdir(), 'upscaler-test-ca-'));
  const caPath = join(dir, 'ca.pem');
  writeFileSync(caPath, ca.cert);
  return {
    caCert: ca.cert,
    caPath,
    cert: server.cert,
    key: server.private,
    cleanup: () => rmSync(dir, { recursive: true, force: true }),
  };
}

export interface TestServer {
  /** `https://127.0.0.1:<port>` (no trailing slash) */
  url: string;
  port: number;
  /** stops listening and destroys open connections */
  close(): Promise<void>;
}

/** An HTTPS server on 127.0.0.1, random port, serving `handler` with the test CA's certificate. */
export async function startHttpsServer(
  handler: (req: IncomingMessage, res: ServerResponse) => void,
  certs: Pick<TestCa, 'cert' | 'key'>,
): Promise<TestServer> {
  const server = createHttpsServer({ cert: certs.cert, key: certs.key }, handler);
  return listen(server, () => server.closeAllConnections());
}

/**
 * A raw TLS server on 127.0.0.1 for answers a well-behaved HTTP server refuses to write (a body
 * delimited only by closing, a Content-Length that lies): `onSocket` writes the bytes itself.
 */
export async function startTlsServer(
  onSocket: (socket: TLSSocket) => void,
  certs: Pick<TestCa, 'cert' | 'key'>,
): Promise<TestServer> {
  const sockets = new Set<Socket>();
  const server = createTlsServer({ cert: certs.cert, key: certs.key }, onSocket);
  server.on('connection', (s: Socket) => {
    sockets.add(s);
    s.on('close', () => sockets.delete(s));
  });
  return listen(server, () => sockets.forEach((s) => s.destroy()));
}

interface Listenable {
  listen(port: number, host: string, cb: () => void): unknown;
  address(): AddressInfo | string | null;
  close(cb: (err?: Error) => void): unknown;
  once(event: 'error', cb: (err: Error) => void): unknown;
}

function listen(server: Listenable, dropConnections: () => void): Promise<TestServer> {
  return new Promise((resolve, reject) => {
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => {
      const { port } = server.address() as AddressInfo;
      resolve({
        url: `https://127.0.0.1:${port}`,
        port,
        close: () =>
          new Promise<void>((done) => {
            server.close(() => done());
            dropConnections();
          }),
      });
    });
  });
}

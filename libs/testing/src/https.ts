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

export interface ListenOptions {
  /**
   * Address to listen on: loopback, 127.0.0.1 (default) or ::1 (the certificate covers both), or in cluster mode the
   * local cluster's node address, where pods reach it (libs/testing/src/cluster.ts, `clusterReceiverListen`).
   */
  host?: string;
}

export interface TestServer {
  /** `https://127.0.0.1:<port>` or `https://[::1]:<port>` (no trailing slash) */
  url: string;
  port: number;
  /** TCP connections accepted so far: 0 proves a refused request never reached the server */
  connections(): number;
  /** stops listening and destroys open connections */
  close(): Promise<void>;
}

/** An HTTPS server on loopback, random port, serving `handler` with the test CA's certificate. */
export async function startHttpsServer(
  handler: (req: IncomingMessage, res: ServerResponse) => void,
  certs: Pick<TestCa, 'cert' | 'key'>,
  opts: ListenOptions = {},
): Promise<TestServer> {
  const server = createHttpsServer({ cert: certs.cert, key: certs.key }, handler);
  const sockets = trackSockets(server);
  return listen(server, sockets, opts.host ?? '127.0.0.1');
}

/**
 * A raw TLS server on 127.0.0.1 for answers a well-behaved HTTP server refuses to write (a body
 * delimited only by closing, a Content-Length that lies): `onSocket` writes the bytes itself.
 */
export async function startTlsServer(
  onSocket: (socket: TLSSocket) => void,
  certs: Pick<TestCa, 'cert' | 'key'>,
  opts: ListenOptions = {},
): Promise<TestServer> {
  const server = createTlsServer({ cert: certs.cert, key: certs.key }, onSocket);
  const sockets = trackSockets(server);
  return listen(server, sockets, opts.host ?? '127.0.0.1');
}

interface SocketTracker {
  accepted: number;
  open: Set<Socket>;
}

function trackSockets(server: { on(event: 'connection', cb: (s: Socket) => void): unknown }): SocketTracker {
  const tracker: SocketTracker = { accepted: 0, open: new Set() };
  server.on('connection', (s: Socket) => {
    tracker.accepted += 1;
    tracker.open.add(s);
    s.on('close', () => tracker.open.delete(s));
  });
  return tracker;
}

interface Listenable {
  listen(port: number, host: string, cb: () => void): unknown;
  address(): AddressInfo | string | null;
  close(cb: (err?: Error) => void): unknown;
  once(event: 'error', cb: (err: Error) => void): unknown;
}

function listen(server: Listenable, sockets: SocketTracker, host: string): Promise<TestServer> {
  return new Promise((resolve, reject) => {
    server.once('error', reject);
    server.listen(0, host, () => {
      const { port } = server.address() as AddressInfo;
      resolve({
        url: host.includes(':') ? `https://[${host}]:${port}` : `https://${host}:${port}`,
        port,
        connections: () => sockets.accepted,
        close: () =>
          new Promise<void>((done) => {
            server.close(() => done());
            sockets.open.forEach((s) => s.destroy());
          }),
      });
    });
  });
}

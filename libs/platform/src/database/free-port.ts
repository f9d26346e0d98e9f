import { promises as fs } from 'node:fs';
import net from 'node:net';

/** A port the OS considers free on loopback right now (the OS picks it). */
export function freeLoopbackPort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = net.createServer();
    server.unref();
    server.once('error', reject);
    server.listen({ host: '127.0.0.1', port: 0, exclusive: true }, () => {
      const { port } = server.address() as net.AddressInfo;
      server.close(() => resolve(port));
    });
  });
}

export function isLoopbackPortFree(port: number): Promise<boolean> {
  return new Promise((resolve) => {
    const server = net.createServer();
    server.unref();
    server.once('error', () => resolve(false));
    server.listen({ host: '127.0.0.1', port, exclusive: true }, () => server.close(() => resolve(true)));
  });
}

/** The port remembered from an earlier run, so restarts keep the same URL. */
export async function readRememberedPort(file: string): Promise<number | undefined> {
  try {
    const port = Number.parseInt(await fs.readFile(file, 'utf8'), 10);
    return Number.isInteger(port) && port > 0 && port < 65536 ? port : undefined;
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === 'ENOENT') return undefined;
    throw err;
  }
}

export async function rememberPort(file: string, port: number): Promise<void> {
  const tmp = `${file}.tmp`;
  await fs.writeFile(tmp, `${port}\n`);
  await fs.rename(tmp, file);
}

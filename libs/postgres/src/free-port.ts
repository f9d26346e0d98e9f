import { randomInt } from 'node:crypto';
import { promises as fs, readFileSync } from 'node:fs';
import net from 'node:net';

const FALLBACK_EPHEMERAL_LOW = 32768;
const DRAW_RANGE_SIZE = 12_000;

function ephemeralPortLow(): number {
  try {
    const first = readFileSync('/proc/sys/net/ipv4/ip_local_port_range', 'utf8').trim().split(/\s+/)[0] ?? '';
    const low = Number.parseInt(first, 10);
    return Number.isInteger(low) && low > 4096 ? low : FALLBACK_EPHEMERAL_LOW;
  } catch {
    return FALLBACK_EPHEMERAL_LOW;
  }
}

/**
 * A port that was free on 127.0.0.1 a moment ago, drawn at random from BELOW the kernel's ephemeral
 * range. A `listen(0)` port lies inside that range, which the kernel also draws source ports from for
 * outgoing connections: between "free a moment ago" and a child process's own bind (Postgres, Kafka),
 * any outgoing connection on the machine may take it. Below the range only an explicit bind can.
 */
export async function freeLoopbackPort(avoid: readonly number[] = []): Promise<number> {
  const high = ephemeralPortLow() - 1;
  const low = Math.max(1024, high - DRAW_RANGE_SIZE);
  for (let attempt = 0; attempt < 100; attempt++) {
    const port = randomInt(low, high + 1);
    if (!avoid.includes(port) && (await isLoopbackPortFree(port))) return port;
  }
  throw new Error(`no free loopback port found in ${low}-${high} after 100 tries`);
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

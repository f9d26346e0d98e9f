import { createServer, type Server } from 'node:net';
import { readFileSync } from 'node:fs';
import {
  freeLoopbackPort,
  freeLoopbackPorts,
  isAddressInUse,
  isLoopbackPortFree,
  retryOnAddressInUse,
  withFreshPortsOnConflict,
} from './ports';

const ephemeralLow = Number.parseInt(readFileSync('/proc/sys/net/ipv4/ip_local_port_range', 'utf8').trim().split(/\s+/)[0]!, 10);

function listenOn(port: number): Promise<Server> {
  return new Promise((resolve, reject) => {
    const server = createServer();
    server.once('error', reject);
    server.listen({ host: '127.0.0.1', port, exclusive: true }, () => resolve(server));
  });
}

describe('test ports', () => {
  it('draws ports below the ephemeral range (outgoing connections never take them) that can be bound', async () => {
    const ports = await freeLoopbackPorts(20);
    expect(new Set(ports).size).toBe(20);
    for (const port of ports) {
      expect(port).toBeLessThan(ephemeralLow);
      expect(port).toBeGreaterThanOrEqual(1024);
    }
    const server = await listenOn(ports[0]!);
    expect(await isLoopbackPortFree(ports[0]!)).toBe(false);
    await new Promise((r) => server.close(r));
    expect(await isLoopbackPortFree(ports[0]!)).toBe(true);
  });

  it('never hands out a port it was asked to avoid', async () => {
    const first = await freeLoopbackPort();
    for (let i = 0; i < 50; i++) expect(await freeLoopbackPort([first])).not.toBe(first);
  });

  it('recognises a taken port in the words of Kafka, MinIO, Postgres and Node, and nothing else', () => {
    expect(isAddressInUse('Socket server failed to bind to 127.0.0.1:41343: Address already in use.')).toBe(true);
    expect(isAddressInUse('FATAL Unable to start the server: Specified port is already in use')).toBe(true);
    expect(isAddressInUse('LOG:  could not bind IPv4 address "127.0.0.1": Address already in use')).toBe(true);
    expect(isAddressInUse('Error: listen EADDRINUSE: address already in use 127.0.0.1:3000')).toBe(true);
    expect(isAddressInUse('kafka exited during start-up: java.lang.OutOfMemoryError: Java heap space')).toBe(false);
  });

  it('starts again on fresh ports only when the failure was a taken port', async () => {
    const seen: number[][] = [];
    const result = await withFreshPortsOnConflict(2, async (ports) => {
      seen.push(ports);
      if (seen.length < 3) throw new Error('bind failed: Address already in use');
      return 'started';
    });
    expect(result).toBe('started');
    expect(seen).toHaveLength(3);
    expect(new Set(seen.flat()).size).toBeGreaterThan(2);

    let calls = 0;
    await expect(
      withFreshPortsOnConflict(1, async () => {
        calls++;
        throw new Error('out of memory');
      }),
    ).rejects.toThrow('out of memory');
    expect(calls).toBe(1);

    calls = 0;
    await expect(
      withFreshPortsOnConflict(1, async () => {
        calls++;
        throw new Error('EADDRINUSE');
      }),
    ).rejects.toThrow('EADDRINUSE');
    expect(calls).toBe(3);
  });

  it('retries the same start, waiting between tries, while a port is taken (a restart on the ports clients hold)', async () => {
    const at: number[] = [];
    const result = await retryOnAddressInUse(
      async () => {
        at.push(Date.now());
        if (at.length < 3) throw new Error('Address already in use');
        return 'started';
      },
      5,
      50,
    );
    expect([result, at.length]).toEqual(['started', 3]);
    expect(at[2] - at[0]).toBeGreaterThanOrEqual(95);
    let calls = 0;
    await expect(
      retryOnAddressInUse(
        async () => {
          calls++;
          throw new Error('EADDRINUSE');
        },
        5,
        1,
      ),
    ).rejects.toThrow('EADDRINUSE');
    expect(calls).toBe(5);
  });
});

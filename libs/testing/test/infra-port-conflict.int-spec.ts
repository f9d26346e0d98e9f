import { createServer, type Server } from 'node:net';
import { rm } from 'node:fs/promises';
import { makeTempDir, runInfraScript } from '../src/infra-scripts';
import { freeLoopbackPorts, isAddressInUse } from '../src/ports';

/**
 * A Kafka start that lost its port to another test process must say so, or the test helpers do not
 * retry on fresh ports (libs/testing/src/ports.ts). A report of only the last 30 log lines once failed a whole e2e
 * suite in CI: all shutdown messages, the bind error scrolled out above them.
 */

function holdPort(port: number): Promise<Server> {
  return new Promise((resolve, reject) => {
    const server = createServer();
    server.once('error', reject);
    server.listen({ host: '127.0.0.1', port, exclusive: true }, () => resolve(server));
  });
}

async function failureOf(start: Promise<unknown>): Promise<string> {
  try {
    await start;
  } catch (err) {
    return err instanceof Error ? err.message : String(err);
  }
  throw new Error('the start succeeded on a taken port');
}

test.each([
  ['controller', 1],
  ['broker', 0],
] as const)(
  'start-kafka.sh on a taken %s port fails with the bind error, which the port-conflict retry recognises',
  async (_which, taken) => {
    const ports = await freeLoopbackPorts(2);
    const holder = await holdPort(ports[taken]!);
    const dataDir = await makeTempDir('upscaler-kafka-taken-');
    try {
      const message = await failureOf(runInfraScript('start-kafka.sh', [dataDir, ...ports.map(String)], { timeoutMs: 180_000 }));
      expect(message).toContain(`127.0.0.1:${ports[taken]}: Address already in use`);
      expect(isAddressInUse(message)).toBe(true);
    } finally {
      await new Promise((r) => holder.close(r));
      await runInfraScript('stop-kafka.sh', [dataDir], { timeoutMs: 90_000 });
      await rm(dataDir, { recursive: true, force: true });
    }
  },
  240_000,
);

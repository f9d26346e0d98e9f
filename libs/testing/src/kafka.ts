import { rm } from 'node:fs/promises';
import { INSTALL_TIMEOUT_MS, runInfraScript, startInfraServer } from './infra-scripts';
import { retryOnAddressInUse } from './ports';

/**
 * A real single-node Kafka (KRaft) on loopback for tests (scripts/infra/start-kafka.sh). Fault tests
 * stop it mid-flow and start it again on the same data and port: topics and offsets survive.
 */
export interface TestKafka {
  /** `['127.0.0.1:<port>']`, the KAFKA_BROKERS of the code under test. */
  brokers: string[];
  port: number;
  dataDir: string;
  /** Stops the broker (controlled shutdown); `start()` brings it back with the same data. */
  stop(): Promise<void>;
  start(): Promise<void>;
  restart(): Promise<void>;
  /** Stops the broker and deletes its data. */
  dispose(): Promise<void>;
}

/**
 * Fetches the Kafka jars once (cached under ~/.cache/upscaler) and returns the Kafka home folder.
 * `KAFKA_VERSION` in the environment picks the broker version (default: install-kafka.sh's, the
 * version docker-compose.yml ships); the scripts inherit this process's environment.
 */
export function ensureKafkaInstalled(): Promise<string> {
  return runInfraScript('install-kafka.sh', [], { timeoutMs: INSTALL_TIMEOUT_MS });
}

export async function startTestKafka(opts: { partitions?: number } = {}): Promise<TestKafka> {
  await ensureKafkaInstalled();
  const env = { KAFKA_PARTITIONS: String(opts.partitions ?? 6) };
  const { dataDir, ports } = await startInfraServer('start-kafka.sh', 'upscaler-kafka-', 2, { timeoutMs: 180_000, env });
  // Restarts (fault tests) keep the first start's ports and folder: clients hold that address.
  const [port, controllerPort] = ports as [number, number];
  const stop = () => runInfraScript('stop-kafka.sh', [dataDir], { timeoutMs: 90_000 }).then(() => undefined);
  // A restart cannot move to fresh ports (clients hold the address), so one that finds a port taken waits for it:
  // our ports are drawn below the ephemeral range (ports.ts), so only another test process's server can hold one,
  // and up to five tries two seconds apart outlast a start that fails on it and lets go.
  const start = () =>
    retryOnAddressInUse(
      () => runInfraScript('start-kafka.sh', [dataDir, String(port), String(controllerPort)], { timeoutMs: 180_000, env }),
      5,
      2_000,
    ).then(() => undefined);
  return {
    brokers: [`127.0.0.1:${port}`],
    port,
    dataDir,
    start,
    stop,
    async restart() {
      await stop();
      await start();
    },
    async dispose() {
      await stop();
      await rm(dataDir, { recursive: true, force: true });
    },
  };
}

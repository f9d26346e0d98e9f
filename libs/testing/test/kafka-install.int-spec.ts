import { execFile } from 'node:child_process';
import { existsSync, readdirSync } from 'node:fs';
import { rm } from 'node:fs/promises';
import { join } from 'node:path';
import { Kafka, logLevel } from 'kafkajs';
import { INFRA_SCRIPTS_DIR, makeTempDir, runInfraScript, startInfraServer } from '../src/infra-scripts';

/**
 * A fresh machine: the first `start-kafka.sh` must work on an empty cache, where install-kafka.sh
 * fetches the jars with Maven and then prints the Kafka home that start-kafka.sh takes as its result. Maven
 * 3.8 printed colour codes on stdout there, so the first start got a path with ESC[0m in it and failed; CI
 * never saw it because its cache was warm. Each test gets its own empty UPSCALE_INFRA_CACHE (the local Maven
 * repository, ~/.m2, stays warm: the jars are copied, not downloaded).
 */

const VERSION = process.env.KAFKA_VERSION ?? '4.1.0';
const MINUTES = 60_000;
const caches: string[] = [];

async function emptyCache(): Promise<string> {
  const dir = await makeTempDir('upscaler-infra-cache-');
  caches.push(dir);
  return dir;
}

afterAll(async () => {
  await Promise.all(caches.map((dir) => rm(dir, { recursive: true, force: true })));
});

/** stdout and stderr exactly as the script wrote them (runInfraScript trims stdout). */
function runRaw(script: string, env: NodeJS.ProcessEnv): Promise<{ stdout: string; stderr: string }> {
  return new Promise((resolve, reject) => {
    execFile(
      'bash',
      [join(INFRA_SCRIPTS_DIR, script)],
      { env: { ...process.env, ...env }, timeout: 20 * MINUTES },
      (err, stdout, stderr) => (err ? reject(new Error(`${script}: ${err.message}\n${stderr}`)) : resolve({ stdout, stderr })),
    );
  });
}

test(
  'install-kafka.sh on an empty cache prints exactly the Kafka home, one clean line, and the home holds the broker jars',
  async () => {
    const cache = await emptyCache();
    const first = await runRaw('install-kafka.sh', { UPSCALE_INFRA_CACHE: cache, KAFKA_VERSION: VERSION });
    const home = join(cache, 'kafka', VERSION);
    // Byte for byte: no escape codes, no Maven lines, nothing but the path and its newline.
    expect(JSON.stringify(first.stdout)).toBe(JSON.stringify(`${home}\n`));
    expect(first.stderr).toContain('fetching kafka');
    expect([existsSync(join(home, '.complete')), readdirSync(join(home, 'libs')).includes(`kafka_2.13-${VERSION}.jar`)]).toEqual([
      true,
      true,
    ]);
    // The second run finds the cache and prints the same line.
    expect((await runRaw('install-kafka.sh', { UPSCALE_INFRA_CACHE: cache, KAFKA_VERSION: VERSION })).stdout).toBe(`${home}\n`);
  },
  20 * MINUTES,
);

test(
  'start-kafka.sh on an empty cache installs, starts a broker that takes a topic, and stops',
  async () => {
    const cache = await emptyCache();
    const env = { UPSCALE_INFRA_CACHE: cache, KAFKA_VERSION: VERSION };
    const { dataDir, ports } = await startInfraServer('start-kafka.sh', 'upscaler-kafka-fresh-', 2, { timeoutMs: 20 * MINUTES, env });
    try {
      expect(existsSync(join(cache, 'kafka', VERSION, '.complete'))).toBe(true);
      const admin = new Kafka({ clientId: 'kafka-install-test', brokers: [`127.0.0.1:${ports[0]}`], logLevel: logLevel.NOTHING }).admin();
      await admin.connect();
      try {
        expect(await admin.createTopics({ topics: [{ topic: 'fresh-cache', numPartitions: 2 }], waitForLeaders: true })).toBe(true);
        const meta = await admin.fetchTopicMetadata({ topics: ['fresh-cache'] });
        expect(meta.topics.map((t) => [t.name, t.partitions.length])).toEqual([['fresh-cache', 2]]);
      } finally {
        await admin.disconnect();
      }
    } finally {
      await runInfraScript('stop-kafka.sh', [dataDir], { timeoutMs: 90_000, env });
      await rm(dataDir, { recursive: true, force: true });
    }
  },
  25 * MINUTES,
);

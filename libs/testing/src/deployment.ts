import { randomBytes } from 'node:crypto';
import { chmodSync, mkdirSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { startEmbeddedPostgres, type EmbeddedPostgres } from '@upscaler/postgres';
import { startTestKafka, type TestKafka } from './kafka';
import { startTestMinio, type TestMinio } from './minio';
import { startService, type StartedService, type StartOptions } from './standalone';

/**
 * A distributed deployment (docs/design.md §3) for end-to-end tests: real Kafka (KRaft), MinIO and
 * Postgres started from packages, and the services as separate processes: api, billing, webhooks and
 * `processors` processors. Everything is fresh per deployment, so deployments never share topics,
 * consumer groups or buckets.
 */
export interface Deployment {
  api: StartedService;
  billing: StartedService;
  webhooks: StartedService;
  processors: StartedService[];
  kafka: TestKafka;
  minio: TestMinio;
  postgres: EmbeddedPostgres;
  env: Record<string, string>;
  /**
   * Stops Postgres (fast shutdown), runs `whileDown` and waits until `downMs` have passed since the stop, then starts
   * it again on the same data and port (fault tests).
   */
  restartPostgres(downMs: number, whileDown?: () => Promise<void>): Promise<void>;
  /** Starts one more service process of the deployment (e.g. a processor or billing again). */
  startService(service: 'api' | 'billing' | 'processor' | 'webhooks'): Promise<StartedService>;
  /** SIGTERM every service, then stop the infrastructure and remove the deployment's directory. */
  stop(): Promise<void>;
  /** SIGKILL every service (a crash), then the same clean-up as stop(). */
  kill(): Promise<void>;
}

export async function startDeployment(opts: { processors?: number; env?: Record<string, string | undefined> } = {}): Promise<Deployment> {
  // Everything on disk the deployment makes lives under one directory that stop() and kill() remove: Postgres's
  // data (~60 MB a deployment: left behind, a few CI runs fill the machine's disk) and each service's data
  // directory (empty in distributed mode, but a thousand of them per test run were left in /tmp).
  const root = mkdtempSync(join(tmpdir(), 'upscaler-dist-'));
  // Embedded Postgres runs initdb as its own user when we are root: it must be able to enter the directories.
  chmodSync(root, 0o755);
  const pgDir = join(root, 'postgres');
  mkdirSync(pgDir, { mode: 0o755 });
  const startPostgres = (port?: number) =>
    startEmbeddedPostgres({ dataDir: pgDir, port, initdbFlags: ['--no-sync'], postgresFlags: ['-c', 'fsync=off'] });
  const [kafka, minio, firstPostgres] = await Promise.all([startTestKafka({ partitions: 4 }), startTestMinio(), startPostgres()]);
  let postgres = firstPostgres;
  const env: Record<string, string> = {
    DATABASE_URL: postgres.url,
    KAFKA_BROKERS: kafka.brokers.join(','),
    KAFKA_PARTITIONS: '4',
    S3_ENDPOINT: minio.endpoint,
    S3_ACCESS_KEY: minio.accessKey,
    S3_SECRET_KEY: minio.secretKey,
    S3_BUCKET: `upscaler-${randomBytes(4).toString('hex')}`,
    UPSCALE_OPERATOR_TOKEN: `op-${randomBytes(16).toString('hex')}`,
    ...(Object.fromEntries(Object.entries(opts.env ?? {}).filter(([, v]) => v !== undefined)) as Record<string, string>),
  };
  const stopInfra = async () => {
    await Promise.all([kafka.dispose(), minio.dispose(), postgres.stop()]);
    rmSync(root, { recursive: true, force: true });
  };
  const started: StartedService[] = [];
  const start = async (service: 'api' | 'billing' | 'processor' | 'webhooks') => {
    const dataDir = mkdtempSync(join(root, `${service}-`));
    const s = await startService({ service, env, dataDir, readyTimeoutMs: 180_000 });
    started.push(s);
    return s;
  };
  const kill = async () => {
    await Promise.all(started.map((s) => s.kill()));
    await stopInfra();
  };
  try {
    // Billing first: the api's readiness does not wait for it, but its first submit does.
    const billing = await start('billing');
    const [webhooks, ...processors] = await Promise.all([
      start('webhooks'),
      ...Array.from({ length: opts.processors ?? 2 }, () => start('processor')),
    ]);
    const api = await start('api');
    return {
      api,
      billing,
      webhooks,
      processors,
      kafka,
      minio,
      get postgres() {
        return postgres;
      },
      env,
      async restartPostgres(downMs, whileDown) {
        await postgres.stop();
        const stopped = Date.now();
        await whileDown?.();
        await new Promise((r) => setTimeout(r, Math.max(0, downMs - (Date.now() - stopped))));
        postgres = await startPostgres(postgres.port);
      },
      startService: start,
      async stop() {
        await Promise.all(started.map((s) => s.stop()));
        await stopInfra();
      },
      kill,
    };
  } catch (e) {
    await kill();
    throw e;
  }
}

/**
 * The distributed deployment as startTarget's handle (target.ts): the whole deployment behind one handle
 * whose api address, operator token, logs, stop and kill cover every process.
 */
export async function startDeploymentAsService(opts: StartOptions): Promise<StartedService> {
  const d = await startDeployment({ env: opts.env });
  const all = () => [d.api, d.billing, d.webhooks, ...d.processors];
  return {
    ...d.api,
    operatorToken: d.env.UPSCALE_OPERATOR_TOKEN,
    serviceUrls: all().map((s) => s.baseUrl),
    logs: () =>
      all()
        .map((s) => s.logs())
        .join('\n'),
    stop: async () => {
      await d.stop();
      return 0;
    },
    kill: () => d.kill(),
  };
}

import { execFile } from 'node:child_process';
import { existsSync, readFileSync } from 'node:fs';
import { homedir } from 'node:os';
import { dirname, join } from 'node:path';
import { promisify } from 'node:util';
import { REPO_ROOT, type StartedService, type StartOptions } from './standalone';

const run = promisify(execFile);

/**
 * The local Kubernetes cluster of `npm run cluster:up` (scripts/cluster/up.sh, docs/kubernetes.md), as the end-to-end
 * suites see it in the e2e-cluster jest project: one release of the chart, already running, shared by every suite.
 */
export interface Cluster {
  /** `http://10.244.0.1:30080/api/v1`: the api's NodePort on the node's bridge address */
  apiUrl: string;
  baseUrl: string;
  operatorToken: string;
  kubeconfig: string;
  namespace: string;
  release: string;
}

/** The file cluster:up writes its BASE_URL, OPERATOR_TOKEN_FILE and KUBECONFIG lines to. */
export function clusterEnvFile(): string {
  return process.env.CLUSTER_ENV_FILE ?? join(process.env.CLUSTER_STATE ?? '/var/tmp/upscaler-cluster', 'cluster.env');
}

export function readCluster(): Cluster {
  const file = clusterEnvFile();
  if (!existsSync(file)) throw new Error(`${file} is missing: run \`npm run cluster:up\` first`);
  const vars = Object.fromEntries(
    readFileSync(file, 'utf8')
      .split('\n')
      .filter((l) => l.includes('='))
      .map((l) => [l.slice(0, l.indexOf('=')), l.slice(l.indexOf('=') + 1)]),
  );
  const apiUrl = vars.BASE_URL!;
  return {
    apiUrl,
    baseUrl: apiUrl.replace(/\/api\/v1$/, ''),
    operatorToken: readFileSync(vars.OPERATOR_TOKEN_FILE!, 'utf8').trim(),
    kubeconfig: vars.KUBECONFIG!,
    namespace: process.env.CLUSTER_NAMESPACE ?? 'upscaler',
    release: process.env.CLUSTER_RELEASE ?? 'upscaler',
  };
}

/**
 * The settings the cluster's release runs with (scripts/cluster/values-local.yaml) that the suites set through
 * the environment elsewhere. A suite that asks for another value cannot run against the shared release.
 */
export const CLUSTER_SERVICE_ENV: Readonly<Record<string, string>> = {
  UPSCALE_RATE_LIMIT_PER_MINUTE: '10000',
  UPSCALE_ALLOW_PRIVATE_NETWORKS: 'true',
  UPSCALE_DEFAULT_QUALITY: 'fast',
  UPSCALE_WEBHOOK_RETRY_SCHEDULE_MS: '200,400,800',
  UPSCALE_WEBHOOK_TIMEOUT_MS: '8000',
  UPSCALE_RESERVATION_TIMEOUT_MS: '30000',
};

/** The node's address on the pods' bridge (scripts/cluster/cluster-env.sh): pods reach the suites' servers there. */
export const CLUSTER_NODE_IP = '10.244.0.1';

/**
 * A CA and server certificate for the suites' HTTPS receivers in cluster mode, in the shape of createTestCa(): the
 * certificate (for 10.244.0.1) is signed by the cluster's CA, which every pod trusts (values-local.yaml,
 * extraCaCertificates). cleanup() removes nothing: the files belong to the cluster.
 */
export function clusterReceiverCa(): { caCert: string; caPath: string; cert: string; key: string; cleanup(): void } {
  const pki = join(dirname(clusterEnvFile()), 'pki');
  const caPath = join(pki, 'ca.crt');
  return {
    caCert: readFileSync(caPath, 'utf8'),
    caPath,
    cert: readFileSync(join(pki, 'receiver.crt'), 'utf8'),
    key: readFileSync(join(pki, 'receiver.key'), 'utf8'),
    cleanup: () => undefined,
  };
}

/**
 * The cluster release as startTarget's handle (target.ts): the running release; stop() leaves it running.
 * serviceUrls are the release's pods on their own addresses (this machine reaches the pods' bridge), for the suites
 * that read every service's /metrics.
 */
export async function startClusterAsService(opts: StartOptions): Promise<StartedService> {
  // The release trusts the cluster's CA (extraCaCertificates), which signs the receivers' certificates in cluster mode.
  const wrong = Object.entries(opts.env ?? {}).filter(
    ([k, v]) => v !== undefined && k !== 'NODE_EXTRA_CA_CERTS' && CLUSTER_SERVICE_ENV[k] !== v,
  );
  if (wrong.length > 0) {
    throw new Error(
      `this suite needs ${wrong.map(([k, v]) => `${k}=${v}`).join(', ')}, which the cluster's shared release does not run with ` +
        '(scripts/cluster/test.sh lists the suites that run against the cluster)',
    );
  }
  const c = readCluster();
  const pods = JSON.parse(await kubectl(['get', 'pods', '-l', `app.kubernetes.io/instance=${c.release}`, '-o', 'json'], c)) as {
    items: Array<{ metadata: { labels?: Record<string, string>; deletionTimestamp?: string }; status: { podIP?: string; phase?: string } }>;
  };
  const serviceUrls = pods.items
    .filter(
      (p) =>
        p.status.phase === 'Running' &&
        p.status.podIP &&
        !p.metadata.deletionTimestamp &&
        p.metadata.labels?.['app.kubernetes.io/component'] !== 'test',
    )
    .map((p) => `http://${p.status.podIP}:8080`);
  return {
    baseUrl: c.baseUrl,
    serviceUrls,
    apiUrl: c.apiUrl,
    port: Number(new URL(c.baseUrl).port),
    dataDir: '',
    operatorToken: c.operatorToken,
    logs: () => '',
    stop: async () => 0,
    kill: async () => {
      throw new Error('the cluster release is shared: kill a pod through kubectl() instead');
    },
  };
}

function clusterBin(name: string): string {
  const version = process.env.K8S_VERSION ?? 'v1.37.2';
  const cache = process.env.CLUSTER_CACHE ?? join(homedir(), '.cache', 'upscaler', 'cluster');
  return name === 'helm'
    ? join(cache, `helm-${process.env.HELM_VERSION ?? 'v3.22.0'}`, 'helm')
    : join(cache, `kubernetes-${version}`, 'bin', name);
}

/** kubectl against the cluster, in the release's namespace; resolves to its stdout. */
export async function kubectl(args: string[], c: Cluster = readCluster()): Promise<string> {
  const { stdout } = await run(clusterBin('kubectl'), ['-n', c.namespace, ...args], {
    env: { ...process.env, KUBECONFIG: c.kubeconfig },
    maxBuffer: 64 * 1024 * 1024,
  });
  return stdout;
}

/** helm against the cluster, in the release's namespace; resolves to its stdout. */
export async function helm(args: string[], c: Cluster = readCluster()): Promise<string> {
  const { stdout } = await run(clusterBin('helm'), [...args, '-n', c.namespace], {
    env: { ...process.env, KUBECONFIG: c.kubeconfig },
    maxBuffer: 64 * 1024 * 1024,
  });
  return stdout;
}

/** The names of the release's pods of one component (api, billing, processor, webhooks) that are not terminating. */
export async function podsOf(
  component: string,
  c: Cluster = readCluster(),
): Promise<Array<{ name: string; ready: boolean; node?: string }>> {
  const out = JSON.parse(await kubectl(['get', 'pods', '-l', `app.kubernetes.io/component=${component}`, '-o', 'json'], c)) as {
    items: Array<{
      metadata: { name: string; deletionTimestamp?: string };
      status: { conditions?: Array<{ type: string; status: string }> };
    }>;
  };
  return out.items
    .filter((p) => !p.metadata.deletionTimestamp)
    .map((p) => ({ name: p.metadata.name, ready: p.status.conditions?.some((x) => x.type === 'Ready' && x.status === 'True') ?? false }));
}

/** The release's database as this machine reaches it (Postgres runs outside the cluster, as a managed one would). */
export function clusterDatabaseUrl(): string {
  const password = readFileSync(join(dirname(clusterEnvFile()), 'pki', 'pg-password'), 'utf8').trim();
  return `postgres://upscaler:${encodeURIComponent(password)}@127.0.0.1:55432/upscaler`;
}

/** Runs a script of scripts/cluster (retag-images.sh, ...) with the cluster's environment; resolves to its stdout. */
export async function clusterScript(name: string, args: string[]): Promise<string> {
  const { stdout } = await run('bash', [join(REPO_ROOT, 'scripts', 'cluster', name), ...args], {
    env: process.env,
    maxBuffer: 16 * 1024 * 1024,
  });
  return stdout;
}

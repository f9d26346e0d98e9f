// The deployment artifacts, validated offline: no cluster, no Docker. Runs
// scripts/deploy/validate.sh (helm lint/template per ci/ values file, Kubernetes JSON schemas,
// kustomize, compose-spec schema, policies) and proves that each check can fail.
// The first run builds helm and kustomize with `go install` (several minutes on 2 cores; cached after).
import { spawnSync, SpawnSyncReturns } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';

const root = resolve(__dirname, '../../..');
const deploy = join(root, 'scripts/deploy');
const chart = join(root, 'charts/upscaler');
// helm built by `go install` assumes Kubernetes 1.20, which the chart's kubeVersion (>=1.27) refuses.
const kube = ['--kube-version', '1.33.0'];

interface Tools {
  HELM: string;
  KUSTOMIZE: string;
  PYTHON: string;
  KUBERNETES_VALIDATE: string;
  COMPOSE_SCHEMA: string;
  PROMTOOL: string;
  MONITORING_CRDS: string;
}

function run(cmd: string, args: string[], timeoutMs = 600_000): SpawnSyncReturns<string> {
  return spawnSync(cmd, args, {
    cwd: root,
    encoding: 'utf8',
    timeout: timeoutMs,
    maxBuffer: 64 * 1024 * 1024,
  });
}

/** `helm template upscaler charts/upscaler` for the chart's Kubernetes version, with more arguments. */
function helmTemplate(...args: string[]): SpawnSyncReturns<string> {
  return run(tools.HELM, ['template', 'upscaler', chart, ...kube, ...args]);
}

let tools: Tools;
let work: string;

beforeAll(() => {
  const install = run('bash', [join(deploy, 'install-tools.sh')], 45 * 60_000);
  if (install.status !== 0) throw new Error(`install-tools.sh failed:\n${install.stderr}`);
  tools = Object.fromEntries(
    install.stdout
      .trim()
      .split('\n')
      .map((line) => line.split(/=(.*)/s).slice(0, 2)),
  ) as unknown as Tools;
  work = mkdtempSync(join(tmpdir(), 'upscaler-deploy-'));
}, 45 * 60_000);

afterAll(() => {
  if (work) rmSync(work, { recursive: true, force: true });
});

describe('deployment artifacts', () => {
  it('validate.sh passes: every ci/ values file, the kustomize overlays and docker-compose.yml', () => {
    const result = run('bash', [join(deploy, 'validate.sh')]);
    const out = result.stdout;
    expect(out).toMatch(/^validate: \d+ passed, 0 failed$/m);
    expect(result.status).toBe(0);
    for (const values of ['default-values', 'ingress-autoscaling-values', 'external-secrets-values', 'everything-values']) {
      expect(out).toContain(`ok   helm lint --strict -f ci/${values}.yaml`);
      expect(out).toContain(`ok   chart policies: ci/${values}.yaml`);
    }
    // Every option on, the operator's kinds against its CRDs, the alerts linted and unit-tested.
    expect(out).toMatch(
      /^ok {3}helm template -f ci\/everything-values\.yaml \(\d+ objects: .*NetworkPolicy,Pod,.*PrometheusRule,.*ServiceMonitor\)$/m,
    );
    expect(out).toContain('ok   custom resources against the Prometheus Operator CRD schemas: ci/everything-values.yaml (2 objects)');
    expect(out).toContain('ok   kubernetes 1.37.0 schemas: helm-everything-values.core.yaml');
    expect(out).toContain('ok   promtool check rules: ci/everything-values.yaml (5 alerts)');
    expect(out).toContain('ok   promtool test rules: scripts/deploy/test/alerts.test.yaml on ci/everything-values.yaml');
    expect(out).toContain('ok   kubernetes 1.37.0 schemas: kustomize-k8s-overlays-production.yaml');
    expect(out).toContain('ok   docker-compose.yml against the compose-spec schema and the compose policies');
    expect(out).toContain('ok   helm template refuses scripts/deploy/test/broken-values.yaml');
  }, 600_000);

  it('the values schema refuses an inline secret, a negative replica count and a non-boolean flag', () => {
    const result = helmTemplate('-f', join(deploy, 'test/broken-values.yaml'));
    expect(result.status).toBe(1);
    expect(result.stderr).toContain("values don't meet the specifications of the schema");
    expect(result.stderr).toMatch(/\/secrets\/databaseUrl.*additional properties 'value' not allowed/s);
    expect(result.stderr).toMatch(/\/processor\/replicaCount.*minimum/s);
    expect(result.stderr).toMatch(/\/config\/allowPrivateNetworks.*boolean/s);
  });

  it('the Kubernetes schema check rejects a misspelt field in a rendered Deployment', () => {
    const rendered = helmTemplate();
    expect(rendered.status).toBe(0);
    const broken = rendered.stdout.replace('revisionHistoryLimit: 5', 'revisionHistoryLimt: 5');
    expect(broken).not.toBe(rendered.stdout);
    const file = join(work, 'broken-manifests.yaml');
    writeFileSync(file, broken);
    const result = run(tools.KUBERNETES_VALIDATE, ['--strict', '--quiet', '-k', '1.37.0', file]);
    expect(result.status).toBe(1);
    expect(result.stdout + result.stderr).toContain("'revisionHistoryLimt' was unexpected");
  });

  it('the policy check rejects a processor that cannot finish its job (grace period 30 s < 120 s)', () => {
    const rendered = helmTemplate('--set', 'processor.terminationGracePeriodSeconds=30');
    expect(rendered.status).toBe(0);
    const file = join(work, 'short-grace.yaml');
    writeFileSync(file, rendered.stdout);
    const result = run(tools.PYTHON, [join(deploy, 'checks/manifests.py'), file]);
    expect(result.status).toBe(1);
    expect(result.stdout.trim()).toBe(
      `POLICY ${file}: Deployment/upscaler-processor: terminationGracePeriodSeconds 30 < 120 (a job must finish)`,
    );
  });

  it('the CRD check rejects a misspelt field in a rendered ServiceMonitor and PrometheusRule', () => {
    const rendered = helmTemplate('-f', join(chart, 'ci/everything-values.yaml'));
    expect(rendered.status).toBe(0);
    const broken = rendered.stdout
      .replace('scrapeTimeout: 10s', 'scrapeTimout: 10s')
      .replace('runbook_url:', 'runbook_url: x\n          severity: 3\n          runbookUrl:');
    expect(broken).not.toBe(rendered.stdout);
    const file = join(work, 'broken-crs.yaml');
    writeFileSync(file, broken);
    const result = run(tools.PYTHON, [join(deploy, 'checks/crds.py'), tools.MONITORING_CRDS, file, join(work, 'rest.yaml')]);
    expect(result.status).toBe(1);
    expect(result.stdout).toContain(
      `CRD ${file}: ServiceMonitor/upscaler: spec/endpoints/0: Additional properties are not allowed ('scrapeTimout' was unexpected)`,
    );
    expect(result.stdout).toMatch(
      /CRD .*: PrometheusRule\/upscaler: spec\/groups\/0\/rules\/0: Additional properties are not allowed \('(severity|runbookUrl)', '(severity|runbookUrl)' were unexpected\)/,
    );
  });

  it('the alert unit tests fail when an alert no longer fires where the runbook says (queue backlog threshold 20 -> 30)', () => {
    const rendered = helmTemplate(
      '--namespace',
      'upscaler',
      '-f',
      join(chart, 'ci/everything-values.yaml'),
      '--set',
      'metrics.prometheusRule.alerts.queueBacklog.threshold=30',
    );
    expect(rendered.status).toBe(0);
    const manifests = join(work, 'moved-threshold.yaml');
    writeFileSync(manifests, rendered.stdout);
    const rulesDir = mkdtempSync(join(work, 'rules-'));
    const extract = run(tools.PYTHON, [join(deploy, 'checks/rules.py'), manifests, join(rulesDir, 'rules.yaml')]);
    expect(extract.status).toBe(0);
    writeFileSync(join(rulesDir, 'alerts.test.yaml'), readFileSync(join(deploy, 'test/alerts.test.yaml')));
    const result = run(tools.PROMTOOL, ['test', 'rules', join(rulesDir, 'alerts.test.yaml')]);
    expect(result.status).toBe(1);
    expect(result.stdout + result.stderr).toMatch(
      /name: queue backlog above 20 for 10 minutes,\s+alertname: UpscalerQueueBacklog, time: 11m/,
    );
  });

  it('the compose check rejects an unknown key and a processor that cannot be scaled', () => {
    const compose = readFileSync(join(root, 'docker-compose.yml'), 'utf8');
    const broken = compose.replace(/^  processor:$/m, '  processor:\n    frobnicate: true\n    container_name: processor');
    expect(broken).not.toBe(compose);
    const file = join(work, 'docker-compose.yml');
    writeFileSync(file, broken);
    const result = run(tools.PYTHON, [join(deploy, 'checks/compose.py'), tools.COMPOSE_SCHEMA, file, root]);
    expect(result.status).toBe(1);
    expect(result.stdout.trim().split('\n')).toEqual([
      `COMPOSE ${file}: schema: services/processor: 'frobnicate' does not match any of the regexes: '^x-'`,
      `COMPOSE ${file}: processor: container_name or published ports prevent --scale processor=N`,
    ]);
  });
});

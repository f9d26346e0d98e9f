import { readdirSync, readFileSync, statSync } from 'node:fs';
import { join, relative, resolve } from 'node:path';
import { Counter, Gauge, Histogram, Summary } from 'prom-client';
import type { DataSource } from 'typeorm';
import { parse, parseAllDocuments } from 'yaml';
import { Metrics } from '../../libs/runtime/src/observability/metrics';
import { registerSystemGauges } from '../../libs/runtime/src/observability/system-gauges';
import { metersOf } from '../../libs/runtime/src/capability';
import type { ReadModelRepository } from '../../libs/projections/src';
import { CAPABILITIES } from '../../modules/capabilities/src';
import { grafanaVariableMetricNames, promqlMetricNames } from './promql-metric-names';

/**
 * Every metric that the chart (autoscaling), its Grafana dashboard, its alerting rules, the kustomize
 * manifests and the docs' PromQL name is one the services export, under that exact name. The exported names come
 * from the code itself: a service's Metrics (with the system gauges and every capability's series) as prom-client
 * exposes them.
 */
const ROOT = resolve(__dirname, '../..');
const CHART = join(ROOT, 'charts/upscaler');
const rel = (f: string) => relative(ROOT, f);

function filesUnder(dir: string, ext: RegExp): string[] {
  return readdirSync(dir).flatMap((name) => {
    const p = join(dir, name);
    return statSync(p).isDirectory() ? filesUnder(p, ext) : ext.test(name) ? [p] : [];
  });
}

/** Every series name a service exposes on GET /metrics: a histogram is its _bucket, _sum and _count series. */
function exportedSeries(): Set<string> {
  const metrics = new Metrics('api');
  // The gauges are read from Postgres at scrape time only; registering them needs no connection.
  registerSystemGauges(metrics, {} as DataSource);
  metersOf(CAPABILITIES, metrics, {} as ReadModelRepository);
  const names = new Set<string>();
  for (const m of metrics.registry.getMetricsAsArray()) {
    const name = (m as unknown as { name: string }).name;
    if (m instanceof Histogram) for (const s of ['_bucket', '_sum', '_count']) names.add(name + s);
    else if (m instanceof Summary) for (const s of ['', '_sum', '_count']) names.add(name + s);
    else if (m instanceof Counter || m instanceof Gauge) names.add(name);
    else throw new Error(`unknown metric type of ${name}`);
  }
  return names;
}

interface Use {
  where: string;
  metric: string;
}

/** `expr:` values of a PrometheusRule template, single-line or block scalars, Helm actions left in. */
function ruleExpressions(template: string): string[] {
  const lines = template.split('\n');
  const exprs: string[] = [];
  lines.forEach((line, i) => {
    const m = /^(\s*)expr:\s*(.*)$/.exec(line);
    if (!m) return;
    if (!/^[|>][-+]?$/.test(m[2])) return void exprs.push(m[2]);
    const block: string[] = [];
    for (let j = i + 1; j < lines.length && (lines[j].trim() === '' || lines[j].search(/\S/) > m[1].length); j++) block.push(lines[j]);
    exprs.push(block.join('\n'));
  });
  return exprs;
}

function ruleUses(): Use[] {
  return filesUnder(join(CHART, 'templates'), /\.yaml$/).flatMap((f) =>
    ruleExpressions(readFileSync(f, 'utf8')).flatMap((e) =>
      promqlMetricNames(e).map((metric) => ({ where: `${rel(f)}: ${e.trim()}`, metric })),
    ),
  );
}

function dashboardUses(): Use[] {
  return filesUnder(join(CHART, 'dashboards'), /\.json$/).flatMap((f) => {
    const d = JSON.parse(readFileSync(f, 'utf8'));
    const panels = (list: any[]): any[] => list.flatMap((p) => [p, ...panels(p.panels ?? [])]);
    const fromPanels = panels(d.panels ?? []).flatMap((p) =>
      (p.targets ?? []).flatMap((t: any) => promqlMetricNames(t.expr ?? '').map((metric) => ({ where: `${rel(f)}: ${p.title}`, metric }))),
    );
    const fromVariables = (d.templating?.list ?? [])
      .filter((v: any) => v.type === 'query')
      .flatMap((v: any) => {
        const q = typeof v.query === 'string' ? v.query : v.query.query;
        return grafanaVariableMetricNames(q).map((metric) => ({ where: `${rel(f)}: variable ${v.name}`, metric }));
      });
    return [...fromPanels, ...fromVariables];
  });
}

/** The autoscaling metrics the values files and the plain manifests name (HPA Pods/External metrics). */
function autoscalingUses(): Use[] {
  const uses: Use[] = [];
  const valuesFiles = [
    join(CHART, 'values.yaml'),
    ...filesUnder(join(CHART, 'ci'), /\.yaml$/),
    join(ROOT, 'scripts/deploy/k8s-base-values.yaml'),
  ];
  for (const f of valuesFiles) {
    const v = parse(readFileSync(f, 'utf8')) ?? {};
    for (const c of ['api', 'billing', 'processor', 'webhooks']) {
      const name = v[c]?.autoscaling?.customMetric?.name;
      if (name) uses.push({ where: `${rel(f)}: ${c}.autoscaling.customMetric`, metric: name });
    }
  }
  for (const f of filesUnder(join(ROOT, 'k8s'), /\.yaml$/)) {
    for (const doc of parseAllDocuments(readFileSync(f, 'utf8'))) {
      const o = doc.toJS();
      if (o?.kind !== 'HorizontalPodAutoscaler') continue;
      for (const m of o.spec?.metrics ?? []) {
        const name = m.external?.metric?.name ?? m.pods?.metric?.name;
        if (name) uses.push({ where: `${rel(f)}: ${o.metadata?.name}`, metric: name });
      }
    }
  }
  return uses;
}

/** ```promql blocks of the docs and the chart's README (comments skipped). */
function docUses(): Use[] {
  const docs = [...filesUnder(join(ROOT, 'docs'), /\.md$/), join(CHART, 'README.md')];
  return docs.flatMap((f) =>
    [...readFileSync(f, 'utf8').matchAll(/```promql\n([\s\S]*?)```/g)].flatMap((block) =>
      block[1]
        .split('\n')
        .filter((l) => l.trim() && !l.trim().startsWith('#'))
        .flatMap((l) => promqlMetricNames(l).map((metric) => ({ where: `${rel(f)}: ${l.trim()}`, metric }))),
    ),
  );
}

describe('the metrics the chart, dashboard, alerts and docs name are the ones the services export', () => {
  const exported = exportedSeries();
  const unknown = (uses: Use[]) => uses.filter((u) => !exported.has(u.metric)).map((u) => `${u.metric} (${u.where})`);

  it('the services export the series the operations docs list', () => {
    for (const s of [
      'upscaler_queue_depth',
      'upscaler_consumer_lag_events',
      'upscaler_http_requests_total',
      'upscaler_engine_duration_seconds_bucket',
      // the runtime series under their standard names (no upscaler_process_ prefix), as stock dashboards read them
      'process_cpu_seconds_total',
      'process_resident_memory_bytes',
      'nodejs_eventloop_lag_p99_seconds',
    ]) {
      expect(exported).toContain(s);
    }
  });

  it('every alerting rule reads exported series (all five alerts are read)', () => {
    const uses = ruleUses();
    expect(new Set(uses.map((u) => u.where.split(': ')[0]))).toEqual(new Set(['charts/upscaler/templates/monitoring/prometheusrule.yaml']));
    expect(uses.length).toBeGreaterThanOrEqual(5);
    expect(unknown(uses)).toEqual([]);
  });

  it('every dashboard panel and variable reads exported series', () => {
    const uses = dashboardUses();
    expect(uses.length).toBeGreaterThanOrEqual(18);
    expect(unknown(uses)).toEqual([]);
  });

  it('every autoscaling metric of the values files and k8s/ is exported; the processors scale on upscaler_queue_depth', () => {
    const uses = autoscalingUses();
    expect(uses).toContainEqual({
      where: 'charts/upscaler/values.yaml: processor.autoscaling.customMetric',
      metric: 'upscaler_queue_depth',
    });
    expect(unknown(uses)).toEqual([]);
  });

  it("every metric in the docs' PromQL is exported", () => {
    const uses = docUses();
    expect(uses.length).toBeGreaterThanOrEqual(10);
    expect(unknown(uses)).toEqual([]);
  });

  it('the check catches the name the autoscaling example used to give (upscale_jobs_queued)', () => {
    expect(unknown([{ where: 'test', metric: 'upscale_jobs_queued' }])).toEqual(['upscale_jobs_queued (test)']);
  });
});

describe('promqlMetricNames', () => {
  it('keeps metric names and drops functions, aggregations, label lists, matchers, ranges and numbers', () => {
    expect(
      promqlMetricNames(
        'histogram_quantile(0.95, sum by (le, route) (rate(upscaler_http_request_duration_seconds_bucket{route="/api/v1/upscale", namespace="$namespace"}[$__rate_interval])))',
      ),
    ).toEqual(['upscaler_http_request_duration_seconds_bucket']);
    expect(promqlMetricNames('sum(rate(a_total{x="1"}[5m] offset 1h)) / on (pod) group_left (node) b_info > 1e3 and bool c')).toEqual([
      'a_total',
      'b_info',
      'c',
    ]);
    expect(promqlMetricNames('max(upscaler_queue_depth{ {{- $ns -}} }) > {{ .threshold }}')).toEqual(['upscaler_queue_depth']);
  });

  it('reads the metric of a Grafana label_values variable, not its label', () => {
    expect(grafanaVariableMetricNames('label_values(upscaler_http_requests_total, namespace)')).toEqual(['upscaler_http_requests_total']);
    expect(grafanaVariableMetricNames('label_values(namespace)')).toEqual([]);
  });
});

/**
 * The metric names a PromQL expression reads, without a PromQL parser: strings, label matchers, ranges and label
 * lists (`by (…)`, `on (…)`, …) are removed, then every identifier that is not a function call, a keyword or part of
 * a number or duration is a metric name. Helm actions (`{{ … }}`) and Grafana variables (`$__rate_interval`,
 * `$namespace`) are removed first, so that templates and dashboards can be read as they are written.
 */
const KEYWORDS = new Set([
  'by',
  'without',
  'on',
  'ignoring',
  'group_left',
  'group_right',
  'and',
  'or',
  'unless',
  'bool',
  'offset',
  'inf',
  'nan',
]);

export function promqlMetricNames(expr: string): string[] {
  const bare = expr
    .replace(/\{\{-?[\s\S]*?-?\}\}/g, ' ')
    .replace(/\$\{?\w+\}?/g, ' ')
    .replace(/"(?:[^"\\]|\\.)*"|'(?:[^'\\]|\\.)*'|`[^`]*`/g, ' ')
    .replace(/\{[^{}]*\}/g, ' ')
    .replace(/\[[^\]]*\]/g, ' ')
    .replace(/\b(?:by|without|on|ignoring|group_left|group_right)\s*\([^)]*\)/g, ' ');
  const names = new Set<string>();
  for (const m of bare.matchAll(/(?<![\w:.])([A-Za-z_:][\w:]*)(\s*\()?/g)) {
    if (m[2] || KEYWORDS.has(m[1].toLowerCase())) continue;
    names.add(m[1]);
  }
  return [...names];
}

/** The metric of a Grafana `label_values(metric{…}, label)` or `query_result(expr)` variable query. */
export function grafanaVariableMetricNames(query: string): string[] {
  const labelValues = /^\s*label_values\(\s*([A-Za-z_:][\w:]*)\s*(?:\{[^}]*\})?\s*,\s*\w+\s*\)\s*$/.exec(query);
  if (labelValues) return [labelValues[1]];
  if (/^\s*label_values\(\s*\w+\s*\)\s*$/.test(query) || /^\s*label_names\(\)\s*$/.test(query)) return [];
  const result = /^\s*query_result\(([\s\S]*)\)\s*$/.exec(query);
  return result ? promqlMetricNames(result[1]) : promqlMetricNames(query);
}

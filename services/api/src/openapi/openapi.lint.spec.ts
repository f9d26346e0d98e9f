import { spawnSync } from 'node:child_process';
import { join } from 'node:path';

/**
 * The committed document passes the two linters people run on an API they generate clients from (docs/api.md
 * "Generating your own client"): Redocly's recommended rules with no error, and only the warnings docs/redocly.yaml
 * explains; Spectral's spectral:oas with nothing at all but what docs/.spectral.yaml turns off, with reasons.
 */
const ROOT = join(__dirname, '..', '..', '..', '..');
const run = (bin: string, args: string[]) =>
  spawnSync(join(ROOT, 'node_modules', '.bin', bin), args, {
    cwd: ROOT,
    encoding: 'utf8',
    env: { ...process.env, REDOCLY_TELEMETRY: 'off', NO_COLOR: '1' },
  });

describe('docs/openapi.json under the common linters', () => {
  it('Redocly (recommended): valid, no error; the only warnings are the explained operation-4xx-response ones', () => {
    const r = run('redocly', ['lint', '--config', 'docs/redocly.yaml', '--format', 'summary', 'docs/openapi.json']);
    const out = `${r.stdout}\n${r.stderr}`;
    expect([r.status, /Your API description is valid/.test(out)]).toEqual([0, true]);
    const warnings = [...out.matchAll(/^warning\s+(\S+): \d+$/gm)].map((m) => m[1]);
    expect(warnings).toEqual(['operation-4xx-response']);
  });

  it('Spectral (spectral:oas): no error and no warning', () => {
    const r = run('spectral', ['lint', '--ruleset', 'docs/.spectral.yaml', '--fail-severity', 'warn', '-f', 'json', 'docs/openapi.json']);
    expect([r.status, JSON.parse(r.stdout.slice(0, r.stdout.lastIndexOf(']') + 1))]).toEqual([0, []]);
  });
});

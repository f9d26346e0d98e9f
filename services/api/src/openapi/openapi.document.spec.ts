import { readdirSync, readFileSync, existsSync } from 'node:fs';
import { join } from 'node:path';
import { RequestMethod, type Type } from '@nestjs/common';
import { GUARDS_METADATA, METHOD_METADATA, PATH_METADATA } from '@nestjs/common/constants';
import Ajv2020 from 'ajv/dist/2020';
import addFormats from 'ajv-formats';
import { ERROR_CODES, JOB_FAILURE_CODES, type ErrorCode } from '@upscaler/contracts';
import { RuntimeModule, type Runtime } from '@upscaler/runtime';
import { ApiModule } from '../api.module';
import { ApiKeyGuard } from '@upscaler/api-keys';
import { SCOPES_KEY, OperatorGuard, RATE_LIMIT_HEADER_NAMES } from '@upscaler/http-api';
import { openApiDocument, renderOpenApiDocument, validateAgainstResponse, validateAgainstSchema } from './openapi.document';

/**
 * What the generator does not guarantee by itself: that the document is valid OpenAPI 3.1, that it
 * lists exactly the routes Nest serves with the security their guards enforce, that every error code
 * the api throws is documented, and that docs/api.md keeps up. The shapes come from the schemas that
 * validate the requests and the answers (openapi.views.spec.ts, openapi-views.e2e-spec.ts, and every e2e suite through
 * jobs-harness's CheckedClient).
 */

type Doc = any;
const doc: Doc = openApiDocument();
const REPO = join(__dirname, '../../../..');
const HTTP_METHODS = ['get', 'post', 'put', 'patch', 'delete'] as const;

function operations(): Map<string, any> {
  const ops = new Map<string, any>();
  for (const [path, item] of Object.entries<any>(doc.paths)) {
    for (const m of HTTP_METHODS) if (item[m]) ops.set(`${m.toUpperCase()} ${path}`, item[m]);
  }
  return ops;
}

/** Routes outside the API on purpose: Prometheus scrapes /metrics (docs/operations.md), clients never call it. */
const UNDOCUMENTED = new Set(['GET /metrics']);

interface Route {
  key: string;
  guard: 'apiKey' | 'operator' | 'none';
  scopes: string[] | undefined;
}

/** A Nest module's controllers and those of the (class) modules it imports, transitively, each module once. */
function controllersOf(module: Type, seen = new Set<Type>()): Type[] {
  if (seen.has(module)) return [];
  seen.add(module);
  const imported = ((Reflect.getMetadata('imports', module) ?? []) as unknown[]).filter((m): m is Type => typeof m === 'function');
  return [...((Reflect.getMetadata('controllers', module) ?? []) as Type[]), ...imported.flatMap((m) => controllersOf(m, seen))];
}

/** Every route Nest registers for the api: its modules' controllers and the runtime's (health, metrics). */
function nestRoutes(): Route[] {
  const controllers: Type[] = [...controllersOf(ApiModule), ...(RuntimeModule.forRuntime({} as Runtime).controllers ?? [])];
  return controllers.flatMap((controller) => {
    const base = String(Reflect.getMetadata(PATH_METADATA, controller) ?? '');
    const guards = (Reflect.getMetadata(GUARDS_METADATA, controller) ?? []) as unknown[];
    const guard = guards.includes(ApiKeyGuard) ? 'apiKey' : guards.includes(OperatorGuard) ? 'operator' : 'none';
    const proto = controller.prototype as Record<string, unknown>;
    return Object.getOwnPropertyNames(proto).flatMap((name) => {
      const handler = proto[name];
      if (name === 'constructor' || typeof handler !== 'function' || Reflect.getMetadata(PATH_METADATA, handler) === undefined) return [];
      const sub = String(Reflect.getMetadata(PATH_METADATA, handler));
      const path = (
        '/' +
        [base, sub]
          .map((s) => s.replace(/^\/+|\/+$/g, ''))
          .filter(Boolean)
          .join('/')
      )
        .replace(/:(\w+)/g, '{$1}')
        .replace(/\*(\w+)/g, '{$1}');
      const method = RequestMethod[Reflect.getMetadata(METHOD_METADATA, handler) as RequestMethod];
      return [{ key: `${method} ${path}`, guard, scopes: Reflect.getMetadata(SCOPES_KEY, handler) as string[] | undefined }];
    });
  });
}

const routes = nestRoutes();

describe('OpenAPI 3.1 document (docs/openapi.json, GET /api/v1/openapi.json)', () => {
  it('is valid by the OAS 3.1 meta-schema (@seriousme/openapi-schema-validator)', () => {
    // eslint-disable-next-line @typescript-eslint/no-require-imports
    const meta = require('@seriousme/openapi-schema-validator/schemas/v3.1/schema.json');
    const ajv = new Ajv2020({ strict: false, allErrors: true });
    addFormats(ajv);
    ajv.addFormat('media-range', true);
    const validate = ajv.compile(meta);
    expect([validate(doc), validate.errors ?? []]).toEqual([true, []]);
    expect(validate({ ...doc, paths2: {} })).toBe(false);
  });

  it('every $ref points at something in the document, and every schema compiles under ajv (JSON Schema 2020-12)', () => {
    const refs = new Set<string>();
    const walk = (n: unknown): void => {
      if (Array.isArray(n)) n.forEach(walk);
      else if (n && typeof n === 'object') {
        for (const [k, v] of Object.entries(n)) {
          if (k === '$ref') refs.add(v as string);
          else walk(v);
        }
      }
    };
    walk(doc);
    const missing = [...refs].filter(
      (r) =>
        r
          .slice(2)
          .split('/')
          .reduce<any>((node, key) => node?.[key.replace(/~1/g, '/')], doc) === undefined,
    );
    expect([refs.size > 20, missing]).toEqual([true, []]);
    // ajv in strict mode, as every e2e suite's CheckedClient uses it
    for (const name of Object.keys(doc.components.schemas)) expect(() => validateAgainstSchema(name, null)).not.toThrow();
    for (const [key, op] of operations()) {
      const [method, path] = key.split(' ');
      for (const [status, r] of Object.entries<any>(op.responses)) {
        if (r.content?.['application/json']) expect(() => validateAgainstResponse(method, path, Number(status), null)).not.toThrow();
      }
    }
  });

  it('a nullable enum lists null among its values (the generator leaves it out; openapi.document.ts puts it back)', () => {
    const wrong: string[] = [];
    const walk = (n: any, at: string): void => {
      if (Array.isArray(n)) n.forEach((v, i) => walk(v, `${at}/${i}`));
      else if (n && typeof n === 'object') {
        if (Array.isArray(n.enum) && Array.isArray(n.type) && n.type.includes('null') && !n.enum.includes(null)) wrong.push(at);
        for (const [k, v] of Object.entries(n)) walk(v, `${at}/${k}`);
      }
    };
    walk(doc, '');
    expect(wrong).toEqual([]);
    expect(doc.components.schemas.WebhookEndpoint.properties.disabled_reason.enum).toEqual(['gone', 'deleted', null]);
  });

  it('renders the same bytes every time (stable order), and every call gets its own copy', () => {
    expect(renderOpenApiDocument()).toBe(renderOpenApiDocument());
    const a = openApiDocument() as Doc;
    a.info.title = 'changed';
    expect((openApiDocument() as Doc).info.title).toBe('Image Upscaling API');
  });
});

describe('the document covers exactly the routes Nest registers', () => {
  it('every route, and nothing else (GET /metrics aside)', () => {
    expect(routes.length).toBeGreaterThan(25);
    const served = routes.map((r) => r.key).filter((k) => !UNDOCUMENTED.has(k));
    expect([...operations().keys()].sort()).toEqual(served.sort());
  });

  it.each(routes.filter((r) => !UNDOCUMENTED.has(r.key)).map((r) => [r.key, r] as const))(
    '%s: security follows its guard and scope',
    (key, route) => {
      const op = operations().get(key);
      if (route.guard === 'apiKey') {
        expect(op.security).toEqual([{ apiKey: route.scopes ?? [] }]);
        expect(Object.keys(op.responses)).toEqual(expect.arrayContaining(['401', '429', '500']));
        expect(Boolean(op.responses['403'])).toBe((route.scopes ?? []).length > 0);
      } else if (route.guard === 'operator') {
        expect([op.security, Boolean(op.responses['401'])]).toEqual([[{ operatorToken: [] }], true]);
      } else {
        // explicitly public (security: []), and no 401 to document
        expect([op.security, op.responses['401']]).toEqual([[], undefined]);
      }
    },
  );
});

describe('error codes (errors.ts is the one table)', () => {
  /** The values an (opened) enumeration lists: its own enum, or that of its anyOf's first branch. */
  const knownValues = (schema: any): string[] => schema?.enum ?? schema?.anyOf?.[0]?.enum ?? [];
  const documented = new Set<string>();
  for (const op of operations().values()) {
    for (const r of Object.values<any>(op.responses)) {
      // every error answer shares the Error schema; the codes a response can carry are its examples
      const body = r.content?.['application/json'];
      if (body?.schema?.$ref === '#/components/schemas/Error') for (const c of Object.keys(body.examples)) documented.add(c);
    }
  }

  it('every code the api, its image fetch and its image probe throw is documented on an operation', () => {
    // the api's own code, what its endpoints are built from, and every module's endpoints (http/, auth/, files/)
    const modules = readdirSync(join(REPO, 'modules')).flatMap((m) =>
      ['http', 'auth', 'files'].map((d) => join(REPO, 'modules', m, 'src', d)).filter((d) => existsSync(d)),
    );
    const files = [join(REPO, 'services/api/src'), join(REPO, 'libs/http-api/src'), ...modules].flatMap((dir) =>
      (readdirSync(dir, { recursive: true }) as string[])
        .filter((f) => f.endsWith('.ts') && !f.endsWith('.spec.ts'))
        .map((f) => join(dir, f)),
    );
    files.push(join(REPO, 'libs/safe-fetch/src/safe-fetch.ts'), join(REPO, 'libs/engine/src/image/probe-image.ts'));
    const thrown = new Set<string>();
    for (const f of files) {
      const text = readFileSync(f, 'utf8');
      for (const m of text.matchAll(/(?:DomainError|EngineError)\(\s*'([a-z_]+)'/g)) thrown.add(m[1]);
      for (const m of text.matchAll(/params: \{ code: '([a-z_]+)' \}/g)) thrown.add(m[1]);
    }
    expect(thrown.size).toBeGreaterThan(10);
    expect([...thrown].filter((c) => !documented.has(c))).toEqual([]);
  });

  it('every error answer is the one shared Error schema, listing its codes in its description with an example each', () => {
    let errorAnswers = 0;
    for (const [key, op] of operations()) {
      for (const [status, r] of Object.entries<any>(op.responses)) {
        if (Number(status) < 400 || !r.content) continue;
        // readiness answers 503 with its health report (which dependency is down), not an error envelope
        if (key === 'GET /health/ready') continue;
        errorAnswers++;
        const body = r.content['application/json'];
        expect([key, status, body.schema]).toEqual([key, status, { $ref: '#/components/schemas/Error' }]);
        for (const [code, example] of Object.entries<any>(body.examples)) {
          expect([key, status, ERROR_CODES[code as keyof typeof ERROR_CODES]?.status, example.value.error.code]).toEqual([
            key,
            status,
            Number(status),
            code,
          ]);
          expect(r.description).toContain(`- \`${code}\`: `);
        }
      }
    }
    expect(errorAnswers).toBeGreaterThan(100);
  });

  it('the Error schema lists every code of errors.ts; a failed job carries a failed-job code', () => {
    expect([...knownValues(doc.components.schemas.Error.properties.error.properties.code)].sort()).toEqual(Object.keys(ERROR_CODES).sort());
    expect(knownValues(doc.components.schemas.Job.properties.error.properties.code)).toEqual([...JOB_FAILURE_CODES]);
  });

  it('enumerations in answers are open (anyOf the known values and any string); request fields stay exact', () => {
    const other = { type: 'string', description: 'A value added after this document: handle it as "other".' };
    expect(doc.components.schemas.Job.properties.quality).toEqual({
      description: 'Additive field: the quality tier used.',
      anyOf: [{ $ref: '#/components/schemas/QualityTier' }, other],
    });
    expect(doc.components.schemas.Job.properties.error.properties.code.anyOf[1]).toEqual(other);
    expect(doc.components.schemas.Job.properties.target).toEqual(expect.objectContaining({ $ref: '#/components/schemas/Target' }));
    const form = doc.paths['/api/v1/upscale'].post.requestBody.content['multipart/form-data'].schema.properties;
    expect([form.quality.enum, form.quality.anyOf]).toEqual([['fast', 'balanced', 'best', 'sharp'], undefined]);
  });
});

describe('docs/api.md agrees with the document', () => {
  const md = readFileSync(join(REPO, 'docs/api.md'), 'utf8');

  it('its error table lists every code of errors.ts with its HTTP status (failed-job-only codes as "(job)")', () => {
    const rows = new Map<string, string>();
    for (const m of md.matchAll(/^\| (\d{3}|\(job\)) \| `([a-z_]+)` \|/gm)) rows.set(m[2], m[1]);
    const wrong = (Object.keys(ERROR_CODES) as ErrorCode[]).filter((code) => {
      const status = rows.get(code);
      if (status === '(job)') return !(JOB_FAILURE_CODES as readonly string[]).includes(code);
      return status !== String(ERROR_CODES[code].status);
    });
    expect([rows.size, wrong]).toEqual([Object.keys(ERROR_CODES).length, []]);
  });

  it('names every rate-limit header and every route of the document', () => {
    expect(RATE_LIMIT_HEADER_NAMES.filter((name) => !md.includes(`| \`${name}\` |`))).toEqual([]);
    const missing = [...operations().keys()].filter((key) => {
      const [method, path] = key.split(' ');
      return !md.includes(`${method} ${path.replace(/^\/api\/v1/, '')}`) && !md.includes(`${method} ${path}`);
    });
    expect(missing).toEqual([]);
  });
});

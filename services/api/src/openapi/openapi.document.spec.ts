import { readdirSync, readFileSync } from 'node:fs';
import { join, relative } from 'node:path';
import Ajv2020 from 'ajv/dist/2020';
import addFormats from 'ajv-formats';
import * as ts from 'typescript';
import {
  ERROR_CODES,
  JOB_FAILURE_CODES,
  SIGNED_URL_TTL_SECONDS,
  WEBHOOK_EVENT_TYPES,
  errorBody,
  type ErrorCode,
  type AccountView,
  type JobEvent,
} from '@upscaler/contracts';
import {
  apiKeyDecider,
  deliveryDecider,
  foldEvents,
  jobDecider,
  jobFixtures,
  toApiKeyView,
  toCancelView,
  toCreateView,
  toDeliveryAttemptViews,
  toJobView,
  toListItemView,
  toWebhookEndpointView,
  webhookEndpointDecider,
  type CreateApiKey,
  type CreateWebhookEndpoint,
  type Decider,
  type JobState,
} from '@upscaler/domain';
import { generateWebhookSecret } from '@upscaler/net';
import { generateApiKey } from '../auth/api-key-secret';
import { RATE_LIMIT_HEADER_NAMES } from './openapi.common';
import { openApiDocument, validateAgainstResponse, validateAgainstSchema } from './openapi.document';

type Doc = any;
const doc: Doc = openApiDocument();
const REPO = join(__dirname, '../../../..');
const HTTP_METHODS = ['get', 'post', 'put', 'patch', 'delete'] as const;

/** Every operation of the document as "METHOD /path" -> operation object. */
function operations(d: Doc = doc): Map<string, any> {
  const ops = new Map<string, any>();
  for (const [path, item] of Object.entries<any>(d.paths)) {
    for (const m of HTTP_METHODS) if (item[m]) ops.set(`${m.toUpperCase()} ${path}`, item[m]);
  }
  return ops;
}

function resolveRef(d: Doc, ref: string): unknown {
  if (!ref.startsWith('#/')) throw new Error(`external $ref ${ref}`);
  return ref
    .slice(2)
    .split('/')
    .map((s) => decodeURIComponent(s).replace(/~1/g, '/').replace(/~0/g, '~'))
    .reduce<any>((node, key) => (node === undefined ? undefined : node[key]), d);
}

function collectRefs(node: unknown, out: string[] = []): string[] {
  if (Array.isArray(node)) node.forEach((n) => collectRefs(n, out));
  else if (node && typeof node === 'object') {
    for (const [k, v] of Object.entries(node)) {
      if (k === '$ref' && typeof v === 'string') out.push(v);
      else collectRefs(v, out);
    }
  }
  return out;
}

/** The OAS 3.1 meta-schema as shipped by @seriousme/openapi-schema-validator (its $dynamicRefs made plain for ajv). */
function metaSchemaValidator() {
  // eslint-disable-next-line @typescript-eslint/no-require-imports
  const schema = require('@seriousme/openapi-schema-validator/schemas/v3.1/schema.json');
  const ajv = new Ajv2020({ strict: false, allErrors: true });
  addFormats(ajv);
  ajv.addFormat('media-range', true);
  return ajv.compile(schema);
}

// ---------------------------------------------------------------------------------------------
// The routes, read from the controllers' decorators with the TypeScript parser.

interface Route {
  key: string;
  guard: 'apiKey' | 'operator' | 'none';
  /** RequireScope(...) arguments; null when the handler has no RequireScope. */
  scopes: string[] | null;
  /** Success statuses the handler can produce: @HttpCode, Nest's default, literals in res.status(...). */
  statuses: number[];
  defaultStatus: number;
}

function controllerFiles(): string[] {
  const apiSrc = join(REPO, 'services/api/src');
  const files = (readdirSync(apiSrc, { recursive: true }) as string[])
    .filter((f) => f.endsWith('.controller.ts'))
    .map((f) => join(apiSrc, f));
  return [...files, join(REPO, 'libs/runtime/src/health.controller.ts')];
}

function decoratorsOf(node: ts.Node): { name: string; args: readonly ts.Expression[] }[] {
  return (ts.canHaveDecorators(node) ? (ts.getDecorators(node) ?? []) : []).flatMap((d) =>
    ts.isCallExpression(d.expression) && ts.isIdentifier(d.expression.expression)
      ? [{ name: d.expression.expression.text, args: d.expression.arguments }]
      : [],
  );
}

const stringArg = (args: readonly ts.Expression[]): string => (args[0] && ts.isStringLiteral(args[0]) ? args[0].text : '');

function statusLiterals(body: ts.Node | undefined): number[] {
  const found: number[] = [];
  const visitLiterals = (n: ts.Node): void => {
    if (ts.isNumericLiteral(n)) found.push(Number(n.text));
    ts.forEachChild(n, visitLiterals);
  };
  const visit = (n: ts.Node): void => {
    if (ts.isCallExpression(n) && ts.isPropertyAccessExpression(n.expression) && n.expression.name.text === 'status') {
      n.arguments.forEach(visitLiterals);
    }
    ts.forEachChild(n, visit);
  };
  if (body) visit(body);
  return found;
}

function routesOf(file: string): Route[] {
  const source = ts.createSourceFile(file, readFileSync(file, 'utf8'), ts.ScriptTarget.ES2022, true);
  const routes: Route[] = [];
  source.forEachChild((cls) => {
    if (!ts.isClassDeclaration(cls)) return;
    const classDecorators = decoratorsOf(cls);
    const controller = classDecorators.find((d) => d.name === 'Controller');
    if (!controller) return;
    const guards = classDecorators.filter((d) => d.name === 'UseGuards').flatMap((d) => d.args.map((a) => a.getText()));
    const guard = guards.includes('ApiKeyGuard') ? 'apiKey' : guards.includes('OperatorGuard') ? 'operator' : 'none';
    for (const member of cls.members) {
      if (!ts.isMethodDeclaration(member)) continue;
      const decorators = decoratorsOf(member);
      const verb = decorators.find((d) => ['Get', 'Post', 'Put', 'Patch', 'Delete'].includes(d.name));
      if (!verb) continue;
      const path = ('/' + [stringArg(controller.args), stringArg(verb.args)].filter(Boolean).join('/'))
        .replace(/:(\w+)/g, '{$1}')
        .replace(/\*(\w+)/g, '{$1}');
      const httpCode = decorators.find((d) => d.name === 'HttpCode');
      const defaultStatus = httpCode ? Number(httpCode.args[0].getText()) : verb.name === 'Post' ? 201 : 200;
      const scope = decorators.find((d) => d.name === 'RequireScope');
      const literals = statusLiterals(member.body);
      routes.push({
        key: `${verb.name.toUpperCase()} ${path}`,
        guard,
        scopes: scope ? scope.args.map((a) => (a as ts.StringLiteral).text) : null,
        statuses: [...new Set([defaultStatus, ...literals])].sort(),
        defaultStatus,
      });
    }
  });
  return routes;
}

const routes = controllerFiles().flatMap(routesOf);

/**
 * Handlers that always set their own status before answering, so Nest's default never goes out.
 * Read from the code: POST /upscale answers res.status(replay ? 200 : 202) on every path.
 */
const DEFAULT_STATUS_NEVER_SENT = new Set(['POST /api/v1/upscale']);

// ---------------------------------------------------------------------------------------------
// Sample views, made by the domain's own view functions from decided events.

const ev = jobFixtures.jobEvents;

function run<S, C, E extends { type: string; data: unknown }>(decider: Decider<S, C, E>, commands: C[]): S {
  return commands.reduce((s, c) => foldEvents(decider, decider.decide(c, s), s), decider.initialState());
}

const T = (s: number) => new Date(Date.UTC(2026, 0, 1, 0, 0, s)).toISOString();
const jobStates: Record<string, JobState> = Object.fromEntries(
  Object.entries<JobEvent[]>({
    queued: [ev.queued()],
    'queued without filename, fell back to 2k': [
      ev.queued({
        filename: null,
        requestedTarget: '4k',
        target: '2k',
        quality: 'best',
        format: 'avif',
      }),
    ],
    processing: [ev.queued(), ev.started(1, 1_000)],
    pending: [ev.queued(), ev.started(1, 1_000), ev.lost(1, 2_000, 5_000)],
    succeeded: [ev.queued(), ev.started(1, 1_000), ev.succeeded(1, 4_000, 3_000)],
    failed: [ev.queued(), ev.started(1, 1_000), ev.failed(1, 2_000, 1_000, 'corrupt_image')],
    cancelled: [ev.queued(), ev.cancelled(700, null)],
  }).map(([name, events]) => [name, foldEvents(jobDecider, events)]),
);

const ACCOUNT_ID = 'acct_0190a1b2c3d47e8f9a0b1c2d3e4f5a6c';
// 100 granted, 9 reserved by an unfinished job, 3 charged for a succeeded one (balance-projection shape)
const account: AccountView = {
  id: ACCOUNT_ID,
  object: 'account',
  name: 'Acme',
  balance: 88,
  reserved: 9,
  charged: 3,
  created_at: T(0),
};

const secretKey = generateApiKey();
const keyCommand = (rate: number | null, name: string | null): CreateApiKey => ({
  type: 'CreateApiKey',
  data: {
    keyId: 'key_0190a1b2c3d47e8f9a0b1c2d3e4f5a6d',
    accountId: ACCOUNT_ID,
    name,
    scopes: ['jobs:read', 'jobs:write'],
    prefix: secretKey.prefix,
    hash: secretKey.hash,
    rateLimitPerMinute: rate,
    now: T(5),
  },
});
const activeKey = run(apiKeyDecider, [keyCommand(null, 'worker')]);
const revokedKey = run(apiKeyDecider, [keyCommand(600, null), { type: 'RevokeApiKey', data: { now: T(9) } }]);

const ENDPOINT_ID = 'we_0190a1b2c3d47e8f9a0b1c2d3e4f5a6e';
const endpointCreate = (description: string | null): CreateWebhookEndpoint => ({
  type: 'CreateWebhookEndpoint',
  data: {
    endpointId: ENDPOINT_ID,
    accountId: ACCOUNT_ID,
    url: 'https://hooks.example.com/upscaler',
    events: [...WEBHOOK_EVENT_TYPES],
    description,
    secret: generateWebhookSecret(),
    now: T(6),
  },
});
const enabledEndpoint = run(webhookEndpointDecider, [endpointCreate('production')]);
const disabledEndpoint = run(webhookEndpointDecider, [
  endpointCreate(null),
  { type: 'DisableWebhookEndpoint', data: { reason: 'deleted', now: T(8) } },
]);

const DELIVERY_ID = 'dlv_0190a1b2c3d47e8f9a0b1c2d3e4f5a6f';
const delivery = run(deliveryDecider, [
  {
    type: 'ScheduleDelivery',
    data: {
      deliveryId: DELIVERY_ID,
      endpointId: ENDPOINT_ID,
      accountId: ACCOUNT_ID,
      eventType: 'job.succeeded',
      jobId: ev.queued().data.jobId,
      body: '{}',
      now: T(10),
    },
  },
  {
    type: 'RecordAttempt',
    data: {
      statusCode: null,
      error: 'connect ECONNREFUSED',
      now: T(10),
      durationMs: 3,
      jitter: 0.5,
    },
  },
  {
    type: 'RecordAttempt',
    data: {
      statusCode: 500,
      error: 'HTTP 500',
      now: T(16),
      durationMs: 40,
      jitter: 0.1,
    },
  },
  {
    type: 'RecordAttempt',
    data: {
      statusCode: 204,
      error: null,
      now: T(400),
      durationMs: 12,
      jitter: 0.9,
    },
  },
]);

const list = <T>(data: T[], hasMore = false) => ({
  object: 'list',
  data,
  has_more: hasMore,
  next_cursor: hasMore ? (data.at(-1) as any).id : null,
});

// ---------------------------------------------------------------------------------------------

describe('OpenAPI 3.1 document (GET /api/v1/openapi.json)', () => {
  it('is a valid OpenAPI 3.1.0 document by the OAS 3.1 meta-schema', () => {
    const validate = metaSchemaValidator();
    const valid = validate(doc);
    expect(validate.errors ?? []).toEqual([]);
    expect([doc.openapi, valid]).toEqual(['3.1.0', true]);
  });

  it('the meta-schema check fails on a broken document (a response without description, an unknown top-level field)', () => {
    const validate = metaSchemaValidator();
    const broken = openApiDocument() as Doc;
    delete broken.paths['/api/v1/jobs'].get.responses['200'].description;
    expect(validate(broken)).toBe(false);
    expect(validate({ ...openApiDocument(), paths2: {} })).toBe(false);
  });

  it('every $ref points at something that exists in the document', () => {
    const refs = [...new Set(collectRefs(doc))];
    expect(refs.length).toBeGreaterThan(20);
    expect(refs.filter((r) => resolveRef(doc, r) === undefined)).toEqual([]);
  });

  it('every component schema and every JSON response schema compiles under ajv strict mode (draft 2020-12)', () => {
    for (const name of Object.keys(doc.components.schemas)) {
      expect(() => validateAgainstSchema(name, null)).not.toThrow();
    }
    for (const [key, op] of operations()) {
      const [method, path] = key.split(' ');
      for (const [status, response] of Object.entries<any>(op.responses)) {
        if (response.content?.['application/json']) expect(() => validateAgainstResponse(method, path, Number(status), null)).not.toThrow();
      }
    }
  });

  it('is built fresh on every call (callers may not change what the next caller gets)', () => {
    const a = openApiDocument() as Doc;
    a.info.title = 'changed';
    expect((openApiDocument() as Doc).info.title).toBe('Image Upscaling API');
  });
});

describe('error codes (errors.ts is the one table)', () => {
  it('the Error schema enumerates exactly every code of errors.ts', () => {
    expect([...doc.components.schemas.Error.properties.error.properties.code.enum].sort()).toEqual(Object.keys(ERROR_CODES).sort());
  });

  it('every documented error response names only codes whose status is that response status', () => {
    const wrong: string[] = [];
    for (const [key, op] of operations()) {
      for (const [status, response] of Object.entries<any>(op.responses)) {
        const codes: ErrorCode[] | undefined = response.content?.['application/json']?.schema?.properties?.error?.properties?.code?.enum;
        for (const c of codes ?? []) if (String(ERROR_CODES[c].status) !== status) wrong.push(`${key} ${status} ${c}`);
      }
    }
    expect(wrong).toEqual([]);
  });

  it('every code the api, its image fetch and its image probe throw is documented on at least one operation', () => {
    const apiSrc = join(REPO, 'services/api/src');
    const files = [
      ...(readdirSync(apiSrc, { recursive: true }) as string[])
        .filter((f) => f.endsWith('.ts') && !f.endsWith('.spec.ts'))
        .map((f) => join(apiSrc, f)),
      join(REPO, 'libs/net/src/safe-fetch.ts'),
      join(REPO, 'libs/engine/src/image/probe-image.ts'),
    ];
    const thrown = new Set<string>();
    for (const f of files) {
      for (const m of readFileSync(f, 'utf8').matchAll(/(?:DomainError|EngineError)\(\s*'([a-z_]+)'/g)) thrown.add(m[1]);
    }
    const documented = new Set<string>();
    for (const op of operations().values()) {
      for (const response of Object.values<any>(op.responses)) {
        for (const c of response.content?.['application/json']?.schema?.properties?.error?.properties?.code?.enum ?? []) documented.add(c);
      }
    }
    expect(thrown.size).toBeGreaterThan(10);
    expect([...thrown].filter((c) => !documented.has(c))).toEqual([]);
  });

  it("a failed job's error.code is one of the failed-job codes", () => {
    expect(doc.components.schemas.Job.properties.error.properties.code.enum).toEqual([...JOB_FAILURE_CODES]);
  });

  it('every error body of errors.ts validates against Error', () => {
    for (const code of Object.keys(ERROR_CODES) as ErrorCode[]) expect(validateAgainstSchema('Error', errorBody(code))).toEqual([]);
    expect(
      validateAgainstSchema('Error', {
        error: { code: 'made_up', message: 'x' },
      }),
    ).toHaveLength(1);
  });
});

describe('routes: the document matches the controllers', () => {
  it('documents exactly the routes the controllers declare', () => {
    expect(routes.length).toBeGreaterThan(20);
    expect([...operations().keys()].sort()).toEqual(routes.map((r) => r.key).sort());
  });

  it.each(routes.map((r) => [r.key, r] as const))('%s: its success statuses are the ones the handler produces', (key, route) => {
    const expected = route.statuses.filter((s) => s < 400 && !(s === route.defaultStatus && DEFAULT_STATUS_NEVER_SENT.has(key)));
    const documented = Object.keys(operations().get(key).responses)
      .filter((s) => /^[23]\d\d$/.test(s))
      .map(Number)
      .sort();
    expect(documented).toEqual([...expected].sort());
  });

  it.each(routes.map((r) => [r.key, r] as const))('%s: security, scope and auth errors follow its guard', (key, route) => {
    const op = operations().get(key);
    if (route.guard === 'apiKey') {
      expect(op.security).toEqual([{ apiKey: route.scopes ?? [] }]);
      expect(op.responses['401'].content['application/json'].schema.properties.error.properties.code.enum).toEqual(['unauthorized']);
      // 401 reports the client address's window (every public answer carries the headers, spec 8)
      expect(op.responses['401'].headers['X-RateLimit-Limit']).toEqual({ $ref: '#/components/headers/X-RateLimit-Limit' });
      expect(op.responses['429'].headers['Retry-After']).toEqual({
        $ref: '#/components/headers/Retry-After',
      });
      expect(Boolean(op.responses['403'])).toBe((route.scopes ?? []).length > 0);
      for (const [status, response] of Object.entries<any>(op.responses)) {
        if (status !== '500') {
          expect([status, response.headers['X-RateLimit-Limit']]).toEqual([status, { $ref: '#/components/headers/X-RateLimit-Limit' }]);
          expect(response.headers['X-RateLimit-Remaining']).toEqual({
            $ref: '#/components/headers/X-RateLimit-Remaining',
          });
          expect(response.headers['X-RateLimit-Reset']).toEqual({
            $ref: '#/components/headers/X-RateLimit-Reset',
          });
          // the same window as the IETF fields (docs/api.md "Rate limits")
          expect([response.headers['RateLimit-Policy'], response.headers.RateLimit]).toEqual([
            { $ref: '#/components/headers/RateLimit-Policy' },
            { $ref: '#/components/headers/RateLimit' },
          ]);
        }
      }
    } else if (route.guard === 'operator') {
      expect(op.security).toEqual([{ operatorToken: [] }]);
      expect(Object.keys(op.responses)).toContain('401');
    } else {
      expect(op.security).toBeUndefined();
      expect(op.responses['401']).toBeUndefined();
    }
  });

  it('every 503 answer carries Retry-After (docs/api.md "Errors")', () => {
    const unavailable = [...operations()].flatMap(([key, op]) =>
      op.responses['503'] ? [[key, op.responses['503'].headers['Retry-After']]] : [],
    );
    expect(unavailable.length).toBeGreaterThan(0);
    for (const [key, header] of unavailable) expect([key, header]).toEqual([key, { $ref: '#/components/headers/Retry-After-Unavailable' }]);
  });

  it('POST /upscale takes a multipart body (image required) or a JSON body (image_url required), and Idempotency-Key', () => {
    const op = operations().get('POST /api/v1/upscale');
    const body = op.requestBody.content;
    expect([body['multipart/form-data'].schema.required, body['application/json'].schema.required]).toEqual([['image'], ['image_url']]);
    for (const schema of [body['multipart/form-data'].schema, body['application/json'].schema]) {
      expect(Object.keys(schema.properties)).toEqual(expect.arrayContaining(['target', 'format', 'quality', 'filename']));
    }
    expect(resolveRef(doc, op.parameters[0].$ref)).toMatchObject({
      name: 'Idempotency-Key',
      in: 'header',
      required: false,
    });
    expect(op.responses['200'].content['application/json'].schema).toEqual({
      $ref: '#/components/schemas/Job',
    });
    expect(op.responses['202'].content['application/json'].schema).toEqual({
      $ref: '#/components/schemas/JobCreate',
    });
    expect(Object.keys(op.responses).sort()).toEqual(['200', '202', '400', '401', '402', '403', '409', '413', '415', '429', '500', '503']);
  });

  it('GET /jobs/{id}/result: 302 with Location, or 200 ResultLink with redirect=false; 409 result_not_ready', () => {
    const op = operations().get('GET /api/v1/jobs/{id}/result');
    expect(op.responses['302'].headers.Location.required).toBe(true);
    expect(op.responses['302'].content).toBeUndefined();
    expect(op.responses['200'].content['application/json'].schema).toEqual({
      $ref: '#/components/schemas/ResultLink',
    });
    expect(op.responses['409'].content['application/json'].schema.properties.error.properties.code.enum).toEqual(['result_not_ready']);
    expect(op.parameters.map((p: any) => p.name)).toEqual(['redirect', 'asset']);
  });

  it('GET /jobs has limit (1-100, default 25), starting_after and status', () => {
    const params = operations().get('GET /api/v1/jobs').parameters;
    expect(params.map((p: any) => [p.name, p.in])).toEqual([
      ['limit', 'query'],
      ['starting_after', 'query'],
      ['status', 'query'],
    ]);
    expect(params[0].schema).toEqual({
      type: 'integer',
      minimum: 1,
      maximum: 100,
      default: 25,
    });
  });

  it('webhooks: job.succeeded, job.failed and job.cancelled, each a signed POST of a WebhookPayload', () => {
    expect(Object.keys(doc.webhooks)).toEqual(['job.succeeded', 'job.failed', 'job.cancelled']);
    for (const item of Object.values<any>(doc.webhooks)) {
      expect(item.post.parameters.map((p: any) => [p.name, p.in, p.required])).toEqual([
        ['webhook-id', 'header', true],
        ['webhook-timestamp', 'header', true],
        ['webhook-signature', 'header', true],
      ]);
      expect(item.post.requestBody.content['application/json'].schema.allOf).toEqual([{ $ref: '#/components/schemas/WebhookPayload' }]);
    }
  });
});

describe('views made by the domain validate against their schemas', () => {
  /** A schema's required fields, its allOf members' included. */
  function requiredOf(schema: any): string[] {
    const fromAllOf = (schema.allOf ?? []).flatMap((s: any) => requiredOf(s.$ref ? resolveRef(doc, s.$ref) : s));
    return [...fromAllOf, ...(schema.required ?? [])];
  }

  /** Object.keys(view) equals the schema's required list (nothing optional, nothing missing), and the view validates. */
  function expectExactly(schemaName: string, view: object): void {
    const required = requiredOf(doc.components.schemas[schemaName]);
    expect([schemaName, Object.keys(view).sort()]).toEqual([schemaName, [...required].sort()]);
    expect([schemaName, validateAgainstSchema(schemaName, view)]).toEqual([schemaName, []]);
  }

  it.each(Object.keys(jobStates))('a %s job: retrieve, create, list item and cancel views', (name) => {
    const state = jobStates[name];
    expectExactly('Job', toJobView(state));
    expectExactly('JobCreate', toCreateView(state));
    expectExactly('JobListItem', toListItemView(state));
    expectExactly('JobCancel', toCancelView(state));
    expect(validateAgainstResponse('GET', '/api/v1/jobs/{id}', 200, toJobView(state))).toEqual([]);
  });

  it("a processing job's running duration (toJobView with now) validates", () => {
    expect(validateAgainstSchema('Job', toJobView(jobStates.processing, T(3)))).toEqual([]);
  });

  it('job lists: a middle page and the last page', () => {
    const items = Object.values(jobStates).map(toListItemView);
    expect(validateAgainstSchema('JobList', list(items, true))).toEqual([]);
    expect(validateAgainstResponse('GET', '/api/v1/jobs', 200, list(items.slice(0, 2)))).toEqual([]);
  });

  it('a result link (redirect=false)', () => {
    const link = {
      url: 'http://127.0.0.1:8080/api/v1/files/results/x.png?exp=1&sig=abc',
      expires_in: SIGNED_URL_TTL_SECONDS,
      content_type: 'image/png',
      bytes: 1523004,
    };
    expectExactly('ResultLink', link);
    expect(validateAgainstSchema('ResultLink', { ...link, expires_in: 600 })).toHaveLength(1);
  });

  it("an account, and the operator's view of it", () => {
    expectExactly('Account', account);
    expectExactly('AdminAccount', { ...account, max_concurrent_jobs: 2 });
    expectExactly('AdminAccount', { ...account, max_concurrent_jobs: null });
    expect(validateAgainstSchema('AdminAccount', account)).toHaveLength(1);
  });

  it('API keys: created (with key), active, revoked, and the list', () => {
    const created = toApiKeyView(activeKey, secretKey.key);
    expectExactly('ApiKeyCreated', created);
    expect(validateAgainstResponse('POST', '/api/v1/api_keys', 201, created)).toEqual([]);
    expectExactly('ApiKey', toApiKeyView(activeKey));
    expectExactly('ApiKey', toApiKeyView(revokedKey));
    expect(validateAgainstSchema('ApiKeyCreated', toApiKeyView(activeKey))).toEqual([
      `(root) must have required property 'key' {"missingProperty":"key"}`,
    ]);
    expect(validateAgainstSchema('ApiKeyList', list([toApiKeyView(activeKey), toApiKeyView(revokedKey)]))).toEqual([]);
  });

  it('webhook endpoints: created (with secret), enabled, disabled, and the list', () => {
    const created = toWebhookEndpointView(enabledEndpoint, {
      includeSecret: true,
    });
    expectExactly('WebhookEndpointCreated', created);
    expectExactly('WebhookEndpoint', toWebhookEndpointView(enabledEndpoint));
    expectExactly('WebhookEndpoint', toWebhookEndpointView(disabledEndpoint));
    expect(validateAgainstSchema('WebhookEndpointList', list([toWebhookEndpointView(disabledEndpoint)]))).toEqual([]);
  });

  it('delivery attempts: no answer, a 500 being retried, then delivered', () => {
    const attempts = toDeliveryAttemptViews(delivery);
    expect(attempts.map((a) => [a.attempt, a.outcome])).toEqual([
      [3, 'succeeded'],
      [2, 'retrying'],
      [1, 'retrying'],
    ]);
    for (const a of attempts) expectExactly('DeliveryAttempt', a);
    expect(validateAgainstResponse('GET', '/api/v1/webhook_endpoints/{id}/deliveries', 200, list(attempts))).toEqual([]);
  });

  it.each([
    ['job.succeeded', 'succeeded'],
    ['job.failed', 'failed'],
    ['job.cancelled', 'cancelled'],
  ] as const)('a %s webhook payload', (type, state) => {
    const payload = {
      type,
      timestamp: T(4),
      data: toJobView(jobStates[state]),
    };
    expectExactly('WebhookPayload', payload);
  });

  it('schemas tolerate unknown fields but reject a missing required field, a wrong type or a wrong null', () => {
    const view = toJobView(jobStates.succeeded);
    expect(validateAgainstSchema('Job', { ...view, something_new: 1 })).toEqual([]);
    const { result: _omitted, ...missing } = view;
    expect(validateAgainstSchema('Job', missing)).toEqual([`(root) must have required property 'result' {"missingProperty":"result"}`]);
    expect(validateAgainstSchema('Job', { ...view, credits: '3' })).toEqual(['/credits must be integer {"type":"integer"}']);
    expect(validateAgainstSchema('Job', { ...view, target: null })).not.toEqual([]);
    expect(
      validateAgainstSchema('Job', {
        ...view,
        finished_at: null,
        duration_ms: null,
      }),
    ).toEqual([]);
    expect(validateAgainstSchema('NoSuchSchema', {})).toEqual(['no schema named NoSuchSchema in components.schemas']);
  });

  it('error answers are checked against the codes the operation documents for that status', () => {
    expect(validateAgainstResponse('DELETE', '/api/v1/jobs/{id}', 409, errorBody('conflict'))).toEqual([]);
    expect(validateAgainstResponse('DELETE', '/api/v1/jobs/{id}', 409, errorBody('result_not_ready'))).toHaveLength(1);
    expect(validateAgainstResponse('DELETE', '/api/v1/jobs/{id}', 418, {})).toEqual(['DELETE /api/v1/jobs/{id} documents no 418 response']);
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
    expect(rows.size).toBe(Object.keys(ERROR_CODES).length);
    expect(wrong).toEqual([]);
  });

  it('names every rate-limit header of the document', () => {
    expect(RATE_LIMIT_HEADER_NAMES.filter((name) => !md.includes(`| \`${name}\` |`))).toEqual([]);
  });

  it('names every route of the document', () => {
    const missing = [...operations().keys()].filter((key) => {
      const [method, path] = key.split(' ');
      const short = path.replace(/^\/api\/v1/, '');
      return !md.includes(`${method} ${short}`) && !md.includes(`${method} ${path}`);
    });
    expect(missing).toEqual([]);
  });
});

// Keep the file list visible in a failure message when a controller moves.
test('controller files read', () => {
  expect(
    controllerFiles()
      .map((f) => relative(REPO, f))
      .sort(),
  ).toEqual([
    'libs/runtime/src/health.controller.ts',
    'services/api/src/accounts/account.controller.ts',
    'services/api/src/accounts/admin.controller.ts',
    'services/api/src/api-keys/api-keys.controller.ts',
    'services/api/src/dashboard/dashboard.controller.ts',
    'services/api/src/files/files.controller.ts',
    'services/api/src/jobs/jobs.controller.ts',
    'services/api/src/openapi/openapi.controller.ts',
    'services/api/src/webhooks/webhook-endpoints.controller.ts',
  ]);
});

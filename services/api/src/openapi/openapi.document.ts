import { OpenAPIRegistry, OpenApiGeneratorV31 } from '@asteasolutions/zod-to-openapi';
import type { ValidateFunction } from 'ajv';
import { httpErrorCodes } from '@upscaler/contracts';
import { registerAccountRoutes, registerAdminAccountRoutes, AccountSchema, AdminAccountSchema } from '@upscaler/billing';
import {
  registerAdminFileRoutes,
  FILE_ENDPOINTS,
  registerJobRoutes,
  ContentHintSchema,
  JobCancelSchema,
  JobCreateSchema,
  JobListItemSchema,
  JobListSchema,
  JobSchema,
  JobStatusSchema,
  OutputFormatSchema,
  QualityTierSchema,
  ResultLinkSchema,
  TargetSchema,
} from '@upscaler/jobs';
import {
  ApiKeyCreatedSchema,
  ApiKeyListSchema,
  ApiKeySchema,
  ScopeSchema,
  registerAdminKeyRoutes,
  registerApiKeyRoutes,
} from '@upscaler/api-keys';
import { DASHBOARD_ENDPOINTS } from '../dashboard/dashboard.routes';
import { DOCS_ENDPOINTS } from '../docs/docs.routes';
import {
  registerWebhookRoutes,
  DeliveryAttemptListSchema,
  DeliveryAttemptSchema,
  WebhookEndpointCreatedSchema,
  WebhookEndpointListSchema,
  WebhookEndpointSchema,
  WebhookEventTypeSchema,
  WebhookPayloadSchema,
} from '@upscaler/webhooks';
import { HealthIndicatorSchema, HealthLiveSchema, HealthReadySchema, META_ENDPOINTS, registerHealthRoutes } from './openapi.routes';
import { registerEndpoints, registerHeaders, ErrorSchema } from '@upscaler/http-api';

/**
 * The OpenAPI 3.1 document of the whole API (docs/spec/upscaling-api-v1.md plus the additions of
 * docs/design.md §6), generated from the zod schemas that validate every request and shape every answer
 * (`*.schemas.ts` beside each controller) and the route metadata registered next to each resource
 * (`*.routes.ts`). Served at GET /api/v1/openapi.json and committed as docs/openapi.json
 * (`npm run openapi:render`; openapi.committed.spec.ts fails when the two differ).
 */

function build(): Record<string, unknown> {
  const registry = new OpenAPIRegistry();
  registry.registerComponent('securitySchemes', 'apiKey', {
    type: 'http',
    scheme: 'bearer',
    bearerFormat: 'usk_…',
    description:
      'Authorization: Bearer usk_… (spec 5). Missing, malformed, unknown or revoked: 401 unauthorized. The roles listed in an ' +
      "operation's security requirement are the key scopes it needs; a key without them gets 403 forbidden.",
  });
  registry.registerComponent('securitySchemes', 'operatorToken', {
    type: 'http',
    scheme: 'bearer',
    description: 'Authorization: Bearer <UPSCALE_OPERATOR_TOKEN> (the standalone writes a generated one to <data dir>/operator-token).',
  });
  registerHeaders(registry);
  // Every view, named, in a fixed order, even where no route refers to it by name (clients generate their types from these).
  const views = {
    JobStatus: JobStatusSchema,
    Target: TargetSchema,
    OutputFormat: OutputFormatSchema,
    QualityTier: QualityTierSchema,
    ContentHint: ContentHintSchema,
    Scope: ScopeSchema,
    WebhookEventType: WebhookEventTypeSchema,
    Job: JobSchema,
    JobCreate: JobCreateSchema,
    JobListItem: JobListItemSchema,
    JobCancel: JobCancelSchema,
    JobList: JobListSchema,
    ResultLink: ResultLinkSchema,
    Account: AccountSchema,
    AdminAccount: AdminAccountSchema,
    ApiKey: ApiKeySchema,
    ApiKeyCreated: ApiKeyCreatedSchema,
    ApiKeyList: ApiKeyListSchema,
    WebhookEndpoint: WebhookEndpointSchema,
    WebhookEndpointCreated: WebhookEndpointCreatedSchema,
    WebhookEndpointList: WebhookEndpointListSchema,
    DeliveryAttempt: DeliveryAttemptSchema,
    DeliveryAttemptList: DeliveryAttemptListSchema,
    Error: ErrorSchema,
    WebhookPayload: WebhookPayloadSchema,
    HealthLive: HealthLiveSchema,
    HealthReady: HealthReadySchema,
    HealthIndicator: HealthIndicatorSchema,
  };
  for (const [name, schema] of Object.entries(views)) registry.register(name, schema);

  registerJobRoutes(registry);
  registerAccountRoutes(registry);
  registerApiKeyRoutes(registry);
  registerWebhookRoutes(registry);
  registerAdminAccountRoutes(registry);
  registerAdminFileRoutes(registry);
  registerAdminKeyRoutes(registry);
  registerEndpoints(registry, [...Object.values(FILE_ENDPOINTS), ...Object.values(META_ENDPOINTS)]);
  registerHealthRoutes(registry);
  registerEndpoints(registry, [...Object.values(DASHBOARD_ENDPOINTS), ...Object.values(DOCS_ENDPOINTS)]);

  const generated = new OpenApiGeneratorV31(registry.definitions).generateDocument({
    openapi: '3.1.0',
    info: {
      title: 'Image Upscaling API',
      version: '1.0.0',
      summary: 'Asynchronous image upscaling (2x, 3x, 4x) paid in credits.',
      description:
        'Submit an image, get a job, poll it or receive a webhook, download the result through a short-lived signed URL. ' +
        'Every error body is { "error": { "code", "message" } }; branch on code. Within /v1 fields are only added: ' +
        'tolerate unknown fields. Enumerations in answers are open: v1 may add values (a quality tier, an error code, ' +
        'an event type), so each is declared as anyOf its known values and any string; handle a value you do not know ' +
        'as "other". Request fields list exactly what the service accepts. Guide: docs/api.md; reference page: /docs.',
      license: { name: 'MIT', identifier: 'MIT' },
      contact: { name: 'API operators', url: 'http://127.0.0.1:8080/docs' },
    } as { title: string; version: string },
    servers: [{ url: 'http://127.0.0.1:8080', description: 'Standalone default (PORT 8080). Paths include /api/v1.' }],
    tags: [
      { name: 'Jobs', description: 'Create, list, retrieve, cancel jobs and download results (spec 4).' },
      { name: 'Account', description: "The caller's account and API keys (bearer usk_ key)." },
      { name: 'Webhooks', description: 'Webhook endpoints, their delivery logs, and the deliveries themselves.' },
      { name: 'Operator', description: 'Accounts, credits and keys for operators (bearer UPSCALE_OPERATOR_TOKEN).' },
      { name: 'Files', description: 'Signed downloads of the embedded storage.' },
      { name: 'Health', description: 'Liveness and readiness probes.' },
      { name: 'Meta', description: 'This document and its reference page.' },
      { name: 'Dashboard', description: 'The account dashboard: a web page and its assets (no key).' },
    ],
  });
  const { openapi, info, servers, tags, paths, webhooks, components } = generated as unknown as Record<string, Record<string, unknown>>;
  // A stable order: the document's fields as the specification lists them; schemas in the order registered above.
  const sorted = (o: Record<string, unknown> | undefined) =>
    Object.fromEntries(Object.entries(o ?? {}).sort(([a], [b]) => (a < b ? -1 : 1)));
  const comps = components as Record<string, Record<string, unknown>>;
  return {
    openapi,
    info,
    servers,
    tags,
    paths: openInResponses(publicWhereUnsecured(normalized(paths))),
    webhooks: openInResponses(publicWhereUnsecured(normalized(webhooks))),
    components: {
      schemas: openViews(normalized(comps.schemas)),
      ...(comps.parameters && Object.keys(comps.parameters).length > 0 ? { parameters: sorted(comps.parameters) } : {}),
      headers: sorted(comps.headers),
      securitySchemes: sorted(comps.securitySchemes),
    },
    // Every code of an HTTP error answer with its status and message, including those no endpoint lists
    // (route_not_found, method_not_allowed): the Python SDK generates its error classes from it (docs/api.md "Errors").
    'x-error-codes': httpErrorCodes(),
  };
}

/**
 * Two fixes to the generator's output. A field that refers to a named schema and describes itself comes out as
 * `allOf: [{ $ref }, { description }]`; OpenAPI 3.1 (JSON Schema 2020-12) lets a $ref have siblings, and
 * `{ $ref, description }` is what code generators read as "this type, with this doc comment".
 */
function normalized<T>(node: T): T {
  if (Array.isArray(node)) return node.map(normalized) as T;
  if (!node || typeof node !== 'object') return node;
  const o = node as Record<string, unknown>;
  // The generator writes a nullable enum as `type: [..., "null"]` with an enum that leaves null out, which
  // refuses the null it means to allow (JSON Schema checks both): the enum lists null too.
  if (Array.isArray(o.enum) && Array.isArray(o.type) && o.type.includes('null') && !o.enum.includes(null)) {
    return normalized({ ...o, enum: [...(o.enum as unknown[]), null] }) as T;
  }
  const allOf = o.allOf as Record<string, unknown>[] | undefined;
  if (
    Array.isArray(allOf) &&
    allOf.length === 2 &&
    Object.keys(allOf[0]).join() === '$ref' &&
    Object.keys(allOf[1]).every((k) => k === 'description') &&
    Object.keys(o).join() === 'allOf'
  ) {
    return { $ref: allOf[0].$ref, ...allOf[1] } as T;
  }
  return Object.fromEntries(Object.entries(o).map(([k, v]) => [k, normalized(v)])) as T;
}

/** Named enumerations v1 may add values to (spec 9: additive changes); the spec's own (target, status) stay closed. */
const OPEN_ENUMS = ['OutputFormat', 'QualityTier', 'ContentHint', 'Scope', 'WebhookEventType', 'SizeFit'];
const ANY_OTHER = { type: 'string', description: 'A value added after this document: handle it as "other".' };

/**
 * Open enumerations in answers (docs/api.md "Generating your own client"): a generated client that checks a closed
 * enum rejects the answer that carries a new tier or error code, though v1 promises only additions. In the view
 * schemas (answers and webhook bodies; requests have their own schemas and stay exact), a field of an OPEN_ENUMS
 * schema becomes anyOf [that schema, any string], and so does an error `code`: openapi-python-client then types it
 * `QualityTier | str`, openapi-typescript `QualityTier | string`.
 */
function openViews(schemas: Record<string, unknown>): Record<string, unknown> {
  return Object.fromEntries(Object.entries(schemas).map(([name, s]) => [name, OPEN_ENUMS.includes(name) ? s : opened(s)]));
}

/** The error envelopes of every response (their `code` lists the codes of that status) opened as in openViews. */
function openInResponses<T>(pathItems: T): T {
  return Object.fromEntries(
    Object.entries((pathItems ?? {}) as Record<string, Record<string, Record<string, unknown>>>).map(([path, item]) => [
      path,
      Object.fromEntries(
        Object.entries(item).map(([k, op]) =>
          op && typeof op === 'object' && 'responses' in op ? [k, { ...op, responses: opened(op.responses) }] : [k, op],
        ),
      ),
    ]),
  ) as T;
}

function opened(node: unknown, key?: string): unknown {
  if (Array.isArray(node)) return node.map((n) => opened(n));
  if (!node || typeof node !== 'object') return node;
  const o = node as Record<string, unknown>;
  const ref = typeof o.$ref === 'string' ? o.$ref.replace('#/components/schemas/', '') : undefined;
  if (ref && OPEN_ENUMS.includes(ref)) {
    const { $ref, ...rest } = o;
    return { ...rest, anyOf: [{ $ref }, ANY_OTHER] };
  }
  if (key === 'code' && o.type === 'string' && Array.isArray(o.enum)) {
    const { type, enum: values, ...rest } = o;
    return { ...rest, anyOf: [{ type, enum: values }, ANY_OTHER] };
  }
  return Object.fromEntries(Object.entries(o).map(([k, v]) => [k, opened(v, k)]));
}

/**
 * An operation that needs no credentials says so with `security: []` (OpenAPI's explicit "public"): the health
 * probes, this document, the reference page, the dashboard's files, signed downloads (their signature is the
 * authorisation), and the webhook deliveries we send (verified by their signature headers). Without it, linters
 * (Redocly's security-defined) and some generators cannot tell a public operation from a forgotten one.
 */
function publicWhereUnsecured<T>(pathItems: T): T {
  const METHODS = ['get', 'put', 'post', 'delete', 'options', 'head', 'patch', 'trace'];
  return Object.fromEntries(
    Object.entries((pathItems ?? {}) as Record<string, Record<string, unknown>>).map(([path, item]) => [
      path,
      Object.fromEntries(
        Object.entries(item).map(([k, op]) =>
          METHODS.includes(k) && op && typeof op === 'object' && !('security' in op) ? [k, { ...op, security: [] }] : [k, op],
        ),
      ),
    ]),
  ) as T;
}

let rendered: string | undefined;

/** The document as committed in docs/openapi.json: pretty JSON, two spaces, a trailing newline. */
export function renderOpenApiDocument(): string {
  rendered ??= JSON.stringify(build(), null, 2) + '\n';
  return rendered;
}

/** The document, a fresh copy on every call (callers may change theirs). */
export function openApiDocument(): Record<string, unknown> {
  return JSON.parse(renderOpenApiDocument()) as Record<string, unknown>;
}

// ---------------------------------------------------------------------------------------------
// Validation helpers for tests (unit and end-to-end). ajv is a devDependency: it is loaded on first
// use only, so serving the document in production never needs it.

const DOC_ID = 'urn:upscaler:openapi';
let ajvState: { ajv: import('ajv/dist/2020').default; compiled: Map<string, ValidateFunction> } | undefined;

function validator(pointer: string): ValidateFunction {
  if (!ajvState) {
    // eslint-disable-next-line @typescript-eslint/no-require-imports
    const Ajv2020 = (require('ajv/dist/2020') as typeof import('ajv/dist/2020')).default;
    // eslint-disable-next-line @typescript-eslint/no-require-imports
    const addFormats = (require('ajv-formats') as typeof import('ajv-formats')).default;
    const ajv = new Ajv2020({ allErrors: true, strict: true, strictTypes: false, allowUnionTypes: true });
    addFormats(ajv);
    // The document's own fields are not JSON Schema keywords; declaring them lets $refs point into it.
    ajv.addVocabulary([
      'openapi',
      'info',
      'servers',
      'paths',
      'webhooks',
      'components',
      'tags',
      'security',
      'jsonSchemaDialect',
      'externalDocs',
      'example',
      'x-error-codes',
    ]);
    ajv.addSchema({ ...openApiDocument(), $id: DOC_ID });
    ajvState = { ajv, compiled: new Map() };
  }
  let v = ajvState.compiled.get(pointer);
  if (!v) {
    v = ajvState.ajv.compile({ $ref: `${DOC_ID}#${pointer}` });
    ajvState.compiled.set(pointer, v);
  }
  return v;
}

function describeErrors(v: ValidateFunction): string[] {
  return (v.errors ?? []).map(
    (e) => `${e.instancePath || '(root)'} ${e.message ?? e.keyword}${e.params ? ` ${JSON.stringify(e.params)}` : ''}`,
  );
}

/** Errors of `value` against components.schemas[schemaName] (JSON Schema 2020-12); empty when valid. */
export function validateAgainstSchema(schemaName: string, value: unknown): string[] {
  const doc = openApiDocument() as { components: { schemas: Record<string, unknown> } };
  if (!(schemaName in doc.components.schemas)) return [`no schema named ${schemaName} in components.schemas`];
  const v = validator(`/components/schemas/${escapePointer(schemaName)}`);
  return v(value) ? [] : describeErrors(v);
}

/**
 * Errors of a JSON response body against the schema the document gives for that operation and
 * status (error bodies included: every one shares the Error schema, and its code must be one the operation
 * lists for that status, which are the response's examples).
 */
export function validateAgainstResponse(method: string, pathTemplate: string, status: number, value: unknown): string[] {
  const doc = openApiDocument() as {
    paths: Record<string, Record<string, { responses?: Record<string, { content?: Record<string, unknown> }> }>>;
  };
  const op = doc.paths[pathTemplate]?.[method.toLowerCase()];
  if (!op) return [`no operation ${method.toUpperCase()} ${pathTemplate}`];
  const response = op.responses?.[String(status)];
  if (!response) return [`${method.toUpperCase()} ${pathTemplate} documents no ${status} response`];
  if (!response.content?.['application/json']) return [`${method.toUpperCase()} ${pathTemplate} ${status} has no JSON body`];
  const v = validator(
    ['', 'paths', pathTemplate, method.toLowerCase(), 'responses', String(status), 'content', 'application/json', 'schema']
      .map(escapePointer)
      .join('/'),
  );
  if (!v(value)) return describeErrors(v);
  const examples = (response.content['application/json'] as { examples?: Record<string, unknown> }).examples;
  const code = status >= 400 ? (value as { error?: { code?: unknown } } | null)?.error?.code : undefined;
  if (examples && typeof code === 'string' && !(code in examples)) {
    return [`/error/code ${code} is not one this answer lists (${Object.keys(examples).join(', ')})`];
  }
  return [];
}

function escapePointer(segment: string): string {
  return encodeURIComponent(segment.replace(/~/g, '~0').replace(/\//g, '~1'));
}

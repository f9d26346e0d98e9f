import type { ValidateFunction } from 'ajv';
import { accountPaths } from './openapi.accounts.paths';
import { rateLimitHeader, type Json } from './openapi.common';
import { dashboardPaths } from './openapi.dashboard.paths';
import { infraPaths } from './openapi.infra.paths';
import { jobPaths } from './openapi.jobs.paths';
import { schemas } from './openapi.schemas';
import { webhookDeliveries, webhookEndpointPaths } from './openapi.webhooks.paths';

/**
 * The OpenAPI 3.1 document of the whole API (docs/spec/upscaling-api-v1.md plus the additions of docs/design.md §6),
 * served at GET /api/v1/openapi.json. Written by hand from the controllers, the views and
 * errors.ts; openapi.document.spec.ts keeps it honest against them.
 */

const idParam = (what: string, example: string): Json => ({
  name: 'id',
  in: 'path',
  required: true,
  description: `${what} id. An id that is malformed, unknown or of another account answers 404.`,
  schema: { type: 'string' },
  example,
});

export function openApiDocument(): Json {
  return {
    openapi: '3.1.0',
    info: {
      title: 'Image Upscaling API',
      version: '1.0.0',
      summary: 'Asynchronous image upscaling (2x, 3x, 4x) paid in credits.',
      description:
        'Submit an image, get a job, poll it or receive a webhook, download the result through a short-lived signed URL. ' +
        'Every error body is { "error": { "code", "message" } }; branch on code. Within /v1 fields are only added: ' +
        'tolerate unknown fields. Guide: docs/api.md.',
      license: { name: 'MIT', identifier: 'MIT' },
    },
    servers: [{ url: 'http://127.0.0.1:8080', description: 'Standalone default (PORT 8080). Paths include /api/v1.' }],
    tags: [
      { name: 'Jobs', description: 'Create, list, retrieve, cancel jobs and download results (spec 4).' },
      { name: 'Account', description: "The caller's account and API keys (bearer usk_ key)." },
      { name: 'Webhooks', description: 'Webhook endpoints, their delivery logs, and the deliveries themselves.' },
      { name: 'Operator', description: 'Accounts, credits and keys for operators (bearer UPSCALE_OPERATOR_TOKEN).' },
      { name: 'Files', description: 'Signed downloads of the embedded storage.' },
      { name: 'Health', description: 'Liveness and readiness probes.' },
      { name: 'Meta', description: 'This document.' },
      { name: 'Dashboard', description: 'The account dashboard: a web page and its assets (no key).' },
    ],
    paths: { ...jobPaths, ...accountPaths, ...webhookEndpointPaths, ...infraPaths, ...dashboardPaths },
    webhooks: webhookDeliveries,
    components: {
      securitySchemes: {
        apiKey: {
          type: 'http',
          scheme: 'bearer',
          bearerFormat: 'usk_…',
          description:
            'Authorization: Bearer usk_… (spec 5). Missing, malformed, unknown or revoked: 401 unauthorized. The roles listed in an ' +
            "operation's security requirement are the key scopes it needs; a key without them gets 403 forbidden.",
        },
        operatorToken: {
          type: 'http',
          scheme: 'bearer',
          description:
            'Authorization: Bearer <UPSCALE_OPERATOR_TOKEN> (the standalone writes a generated one to <data dir>/operator-token).',
        },
      },
      parameters: {
        JobId: idParam('Job', 'job_0190a1b2c3d47e8f9a0b1c2d3e4f5a6b'),
        AccountId: idParam('Account', 'acct_0190a1b2c3d47e8f9a0b1c2d3e4f5a6c'),
        ApiKeyId: idParam('API key', 'key_0190a1b2c3d47e8f9a0b1c2d3e4f5a6d'),
        WebhookEndpointId: idParam('Webhook endpoint', 'we_0190a1b2c3d47e8f9a0b1c2d3e4f5a6e'),
        IdempotencyKey: {
          name: 'Idempotency-Key',
          in: 'header',
          required: false,
          description: 'Makes the create safe to retry: 1-255 printable ASCII characters (a UUID is recommended), scoped to the account.',
          schema: { type: 'string', minLength: 1, maxLength: 255, pattern: '^[\\x20-\\x7e]+$' },
        },
      },
      headers: {
        'X-RateLimit-Limit': rateLimitHeader('X-RateLimit-Limit'),
        'X-RateLimit-Remaining': rateLimitHeader('X-RateLimit-Remaining'),
        'X-RateLimit-Reset': rateLimitHeader('X-RateLimit-Reset'),
        'RateLimit-Policy': rateLimitHeader('RateLimit-Policy'),
        RateLimit: rateLimitHeader('RateLimit'),
        'Retry-After': {
          description: 'Seconds until the rate-limit window resets (at least 1).',
          required: true,
          schema: { type: 'integer', minimum: 1 },
        },
        'Retry-After-Unavailable': {
          description: 'Seconds to wait before retrying (Retry-After of a 503: a dependency did not answer in time).',
          required: true,
          schema: { type: 'integer', minimum: 1 },
        },
        'X-Request-Id': {
          description:
            'The request id (yours from X-Request-Id when it is 1-128 of [A-Za-z0-9._-], else generated); quote it when reporting a problem.',
          required: true,
          schema: { type: 'string' },
        },
      },
      schemas,
    },
  };
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
 * status (error bodies included: their code must be one the operation documents for that status).
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
  return v(value) ? [] : describeErrors(v);
}

function escapePointer(segment: string): string {
  return encodeURIComponent(segment.replace(/~/g, '~0').replace(/\//g, '~1'));
}

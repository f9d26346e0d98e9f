import type { OpenAPIRegistry, ResponseConfig } from '@asteasolutions/zod-to-openapi';
import { ERROR_CODES, errorBody, type ErrorCode, type Scope } from '@upscaler/contracts';
import { ErrorSchema, type z } from './zod';

/**
 * Route metadata shared by every resource's `*.routes.ts`: security requirements, the rate-limit headers
 * (spec 8) and error responses ({ error: { code, message } }, spec 7) whose `code` is narrowed to exactly
 * the codes that route can answer with.
 */

export type Json = Record<string, unknown>;
export type Responses = Record<string, ResponseConfig>;
/** A response's headers as OpenAPI header objects (or $refs to components.headers). */
export type Headers = Exclude<NonNullable<ResponseConfig['headers']>, z.AnyZodObject>;

/** Bearer `usk_` key; OpenAPI 3.1 lets non-OAuth requirements name the roles (here: scopes) they need. */
export const apiKeySecurity = (scope?: Scope): Record<string, string[]>[] => [{ apiKey: scope ? [scope] : [] }];
export const operatorSecurity: Record<string, string[]>[] = [{ operatorToken: [] }];

/**
 * Whether a response carries the X-RateLimit-* headers. `always`: every public /api/v1 answer (spec 8): a
 * request with a valid key counts against the key's window (ApiKeyGuard), one answered without a valid key
 * (401, a body that is not JSON or too large, the OpenAPI document) against its client address's window
 * (rate-limit/unkeyed-rate-limit.ts). `maybe`: an unexpected failure (500) may come before either count.
 * `never`: not the public API (operator API, signed files, health, dashboard and reference pages).
 */
export type RateLimitHeaders = 'always' | 'maybe' | 'never';

/** The window's headers on every public answer: the X-RateLimit-* ones and the IETF fields (draft-ietf-httpapi-ratelimit-headers). */
export const RATE_LIMIT_HEADER_NAMES = ['X-RateLimit-Limit', 'X-RateLimit-Remaining', 'X-RateLimit-Reset', 'RateLimit-Policy', 'RateLimit'];

const RATE_LIMIT_HEADERS: Record<string, { description: string; schema?: Json }> = {
  'X-RateLimit-Limit': {
    description:
      "Requests allowed per one-minute window for this API key (60 by default; a key may have its own rate_limit_per_minute); for a request without a valid key, the client address's window at the default rate.",
  },
  'X-RateLimit-Remaining': { description: 'Requests left in the current window, after this one (never below 0).' },
  'X-RateLimit-Reset': { description: 'When the current window ends, as Unix time in seconds. Windows are fixed, aligned to the minute.' },
  'RateLimit-Policy': {
    description:
      'The window as an IETF RateLimit-Policy field: the policy "default", its quota q (the same number as X-RateLimit-Limit) per window of w = 60 seconds. Example: `"default";q=60;w=60`.',
    schema: { type: 'string', pattern: '^"default";q=\\d+;w=60$' },
  },
  RateLimit: {
    description:
      'The window as an IETF RateLimit field: for the policy "default", r requests remaining (X-RateLimit-Remaining) and t seconds until the window resets (at least 1). Example: `"default";r=59;t=30`.',
    schema: { type: 'string', pattern: '^"default";r=\\d+;t=\\d+$' },
  },
};

export function rateLimitHeader(name: string): Json {
  const { description, schema } = RATE_LIMIT_HEADERS[name];
  return { description, required: true, schema: schema ?? { type: 'integer', minimum: 0 } };
}

/** components.headers: the headers many answers share, referenced by name. */
export function registerHeaders(registry: OpenAPIRegistry): void {
  for (const name of RATE_LIMIT_HEADER_NAMES) registry.registerComponent('headers', name, rateLimitHeader(name));
  registry.registerComponent('headers', 'Retry-After', {
    description: 'Seconds until the rate-limit window resets (at least 1).',
    required: true,
    schema: { type: 'integer', minimum: 1 },
  });
  registry.registerComponent('headers', 'Retry-After-Unavailable', {
    description: 'Seconds to wait before retrying (Retry-After of a 503: a dependency did not answer in time).',
    required: true,
    schema: { type: 'integer', minimum: 1 },
  });
  registry.registerComponent('headers', 'X-Request-Id', {
    description:
      'The request id (yours from X-Request-Id when it is 1-128 of [A-Za-z0-9._-], else generated); quote it when reporting a problem.',
    required: true,
    schema: { type: 'string' },
  });
}

const headerRef = (name: string): Json => ({ $ref: `#/components/headers/${name}` });

export function headersFor(rateLimit: RateLimitHeaders, extra: Json = {}): Headers {
  const h: Json = { 'X-Request-Id': headerRef('X-Request-Id') };
  if (rateLimit !== 'never') {
    const required = rateLimit === 'always';
    for (const name of RATE_LIMIT_HEADER_NAMES) h[name] = required ? headerRef(name) : { ...rateLimitHeader(name), required: false };
  }
  return { ...h, ...extra } as Headers;
}

/** The response of one success status, with a JSON body shaped by a view schema. */
export function jsonResponse(
  description: string,
  schema: z.ZodTypeAny,
  rateLimit: RateLimitHeaders,
  extraHeaders: Json = {},
): ResponseConfig {
  return { description, headers: headersFor(rateLimit, extraHeaders), content: { 'application/json': { schema } } };
}

/**
 * An error response of one HTTP status: the one shared error envelope (components.schemas.Error, so a generated
 * client has one error type), the codes this answer can carry listed in its description with one example each.
 * Every code must have that status in errors.ts; the end-to-end harness checks each answer's code is one listed.
 */
export function errorResponse(status: number, codes: ErrorCode[], rateLimit: RateLimitHeaders, note?: string): ResponseConfig {
  for (const c of codes) {
    if (ERROR_CODES[c].status !== status) throw new Error(`OpenAPI: ${c} is ${ERROR_CODES[c].status}, not ${status}`);
  }
  const lines = codes.map((c) => `- \`${c}\`: ${ERROR_CODES[c].message}`);
  const extra: Json =
    status === 429
      ? { 'Retry-After': headerRef('Retry-After') }
      : status === 503
        ? { 'Retry-After': headerRef('Retry-After-Unavailable') }
        : {};
  return {
    description: [note, ...lines].filter(Boolean).join('\n'),
    headers: headersFor(rateLimit, extra),
    content: {
      'application/json': {
        schema: ErrorSchema,
        examples: Object.fromEntries(codes.map((c) => [c, { value: errorBody(c) }])),
      },
    },
  };
}

/** What a 503 service_unavailable means on any route (docs/runbooks.md "Faults"). */
export const DEPENDENCY_AWAY =
  'A database, storage or the broker was away for a moment, or storage is full (the message says so); nothing was created or charged. Retry after Retry-After seconds.';

/**
 * The errors every route behind ApiKeyGuard can answer with: 401 before the key is known (it reports the
 * client address's window), 429 once the key's (or, without a valid key, the address's) window is full, 403
 * when the key lacks the route's scope (checked after the rate limit), 500 on an unexpected failure, 503 while a
 * dependency is away.
 */
export function keyedErrors(opts: { scoped: boolean }): Responses {
  return {
    '401': errorResponse(
      401,
      ['unauthorized'],
      'always',
      "Missing, malformed, unknown or revoked API key. Counted against the client address's window (the default rate); past it the answer is 429.",
    ),
    ...(opts.scoped ? { '403': errorResponse(403, ['forbidden'], 'always', 'The API key lacks the scope this route requires.') } : {}),
    '429': errorResponse(
      429,
      ['rate_limited'],
      'always',
      "The key used up its window (without a valid key: the client address's window); wait for Retry-After seconds.",
    ),
    '500': errorResponse(500, ['internal_error'], 'maybe'),
    '503': errorResponse(503, ['service_unavailable'], 'maybe', DEPENDENCY_AWAY),
  };
}

/** The errors of every operator route: a missing or wrong operator token, and unexpected failures. */
export function operatorErrors(): Responses {
  return {
    '401': errorResponse(401, ['unauthorized'], 'never', 'Missing or invalid operator token (UPSCALE_OPERATOR_TOKEN, or none configured).'),
    '500': errorResponse(500, ['internal_error'], 'never'),
    '503': errorResponse(503, ['service_unavailable'], 'never', DEPENDENCY_AWAY),
  };
}

/**
 * What every route with a JSON body can answer before it runs (docs/api.md "Request bodies"): a body over
 * 100 kB (413), a charset other than UTF-8 or a Content-Encoding other than gzip, deflate or br (415).
 * `extra415`: the route's own 415 codes (POST /upscale: unsupported_media_type).
 */
export function jsonBodyErrors(rateLimit: RateLimitHeaders, opts: { extra415?: ErrorCode[]; note413?: string } = {}): Responses {
  const before = rateLimit === 'always' ? " Answered before the key is checked (the client address's window)." : '';
  return {
    '413': errorResponse(413, ['payload_too_large'], rateLimit, (opts.note413 ?? 'The JSON body is over 100 kB.') + before),
    '415': errorResponse(
      415,
      [...(opts.extra415 ?? []), 'unsupported_charset', 'unsupported_content_encoding'],
      rateLimit,
      'unsupported_charset: the Content-Type names a charset other than UTF-8; unsupported_content_encoding: a ' +
        'Content-Encoding other than gzip, deflate or br.' +
        before,
    ),
  };
}

/** A JSON request body (required) with named examples. */
export function jsonBody(schema: z.ZodTypeAny, examples?: Record<string, unknown>) {
  return {
    required: true,
    content: {
      'application/json': {
        schema,
        ...(examples ? { examples: Object.fromEntries(Object.entries(examples).map(([k, value]) => [k, { value }])) } : {}),
      },
    },
  };
}

/**
 * What every public /api/v1 endpoint is built from, whichever capability module declares it: the zod dialect its
 * schemas are written in and the OpenAPI responses they document, one way to parse a request into a typed
 * command, the rate limit (per key, and per address for unkeyed answers), and the read caches that follow the log.
 */
export * from './openapi/zod';
export * from './openapi/responses';
export * from './request/parse-request';
export * from './request/parse-query';
export * from './request/page-headers';
export * from './rate-limit/window-counter';
export * from './rate-limit/rate-limiter';
export * from './rate-limit/unkeyed-rate-limit';
export * from './read-cache/log-tail';
export * from './read-cache/entity-cache';
export * from './http-api.module';
export * from './auth/operator.guard';
export * from './endpoint/scopes.decorator';
export * from './endpoint/endpoint';

import { applyDecorators, Delete, Get, HttpCode, Patch, Post, Put } from '@nestjs/common';
import type { OpenAPIRegistry, RouteConfig } from '@asteasolutions/zod-to-openapi';
import type { Scope } from '@upscaler/contracts';
import { apiKeySecurity, keyedErrors, operatorErrors, operatorSecurity, type Responses } from '../openapi/responses';
import { RequireScope } from './scopes.decorator';

/**
 * Who may call an endpoint: a key with this scope (spec 5: exactly that scope), any valid key, the operator token, or
 * anyone (the OpenAPI document, the reference page, signed files). The controller's guard enforces it (ApiKeyGuard
 * reads the scope this sets; OperatorGuard); the layering test checks that each route's guard matches.
 */
export type EndpointAuth = { scope: Scope } | 'key' | 'operator' | 'public';

/**
 * One endpoint, declared once: its method and path, who may call it, and its OpenAPI operation (request schemas,
 * responses, prose). `@Endpoint(declaration)` on the handler makes the Nest route, its success status and its scope
 * from it; `registerEndpoints` makes the OpenAPI path from the same object.
 */
export type EndpointDeclaration = Omit<RouteConfig, 'security'> & {
  auth: EndpointAuth;
  /** A path parameter that takes the rest of the path, slashes included (a signed file's object path): Nest's `*name`. */
  wildcard?: string;
};

/** Declares an endpoint (the identity: it only gives the object its type). */
export function defineEndpoint<const D extends EndpointDeclaration>(declaration: D): D {
  return declaration;
}

const METHODS = { get: Get, post: Post, put: Put, patch: Patch, delete: Delete } as const;

/** The success status: the lowest 2xx (or 3xx) response the declaration documents. */
export function successStatus(d: EndpointDeclaration): number {
  const statuses = Object.keys(d.responses)
    .map(Number)
    .filter((s) => s >= 200 && s < 400)
    .sort((a, b) => a - b);
  if (statuses.length === 0) throw new Error(`${d.method.toUpperCase()} ${d.path} documents no success response`);
  return statuses[0];
}

/** The handler's Nest decorators: route (OpenAPI `{id}` becomes Nest's `:id`), success status, scope. */
export function Endpoint(d: EndpointDeclaration): MethodDecorator {
  const method = METHODS[d.method as keyof typeof METHODS];
  if (!method) throw new Error(`unsupported method ${d.method} for ${d.path}`);
  const route = d.path.replace(/\{(\w+)\}/g, (_, name: string) => (name === d.wildcard ? `*${name}` : `:${name}`));
  const decorators = [method(route), HttpCode(successStatus(d))];
  if (d.auth === 'key') decorators.push(RequireScope());
  else if (typeof d.auth === 'object') decorators.push(RequireScope(d.auth.scope));
  return applyDecorators(...decorators);
}

/**
 * The answers `auth` implies, so a declaration lists only its own: a keyed route's 401, 429, 500 and 503, and 403 when
 * it needs a scope (keyedErrors); an operator route's 401, 500 and 503 (operatorErrors); none for a public one.
 */
export function authErrors(auth: EndpointAuth): Responses {
  if (auth === 'public') return {};
  if (auth === 'operator') return operatorErrors();
  return keyedErrors({ scoped: auth !== 'key' });
}

/** The OpenAPI paths of these endpoints: security and the answers `auth` implies from `auth`, the declared answers over them. */
export function registerEndpoints(registry: OpenAPIRegistry, declarations: Iterable<EndpointDeclaration>): void {
  for (const { auth, wildcard: _routeOnly, ...route } of declarations) {
    const security =
      auth === 'operator' ? operatorSecurity : auth === 'public' ? undefined : apiKeySecurity(auth === 'key' ? undefined : auth.scope);
    registry.registerPath({ ...route, responses: { ...authErrors(auth), ...route.responses }, ...(security ? { security } : {}) });
  }
}

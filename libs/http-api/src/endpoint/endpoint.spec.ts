import 'reflect-metadata';
import { HTTP_CODE_METADATA, METHOD_METADATA, PATH_METADATA } from '@nestjs/common/constants';
import { RequestMethod } from '@nestjs/common';
import { OpenAPIRegistry } from '@asteasolutions/zod-to-openapi';
import { defineEndpoint, Endpoint, registerEndpoints, successStatus, type EndpointDeclaration } from './endpoint';
import { SCOPES_KEY } from './scopes.decorator';

const ok = { description: 'ok' };
const revoke = defineEndpoint({
  method: 'delete',
  path: '/api/v1/things/{id}',
  responses: { '200': ok, '404': ok },
  auth: { scope: 'keys:write' },
});
const create = defineEndpoint({ method: 'post', path: '/api/v1/things', responses: { '201': ok }, auth: 'key' });
const admin = defineEndpoint({ method: 'get', path: '/api/v1/admin/things', responses: { '200': ok }, auth: 'operator' });
const page = defineEndpoint({ method: 'get', path: '/docs', responses: { '200': ok }, auth: 'public' });

class Handlers {
  @Endpoint(revoke) revoke() {}
  @Endpoint(create) create() {}
}

describe('an endpoint declared once', () => {
  it('makes the Nest route, its success status and its scope', () => {
    const meta = (h: () => void) => [
      Reflect.getMetadata(PATH_METADATA, h),
      RequestMethod[Reflect.getMetadata(METHOD_METADATA, h) as RequestMethod],
      Reflect.getMetadata(HTTP_CODE_METADATA, h),
      Reflect.getMetadata(SCOPES_KEY, h),
    ];
    const h = Handlers.prototype;
    expect([meta(h.revoke), meta(h.create)]).toEqual([
      ['/api/v1/things/:id', 'DELETE', 200, ['keys:write']],
      ['/api/v1/things', 'POST', 201, []],
    ]);
  });

  it('makes the OpenAPI operation, its security from who may call it', () => {
    const registry = new OpenAPIRegistry();
    registerEndpoints(registry, [revoke, create, admin, page]);
    const security = registry.definitions.map((d) => (d.type === 'route' ? [d.route.path, d.route.security] : []));
    expect(security).toEqual([
      ['/api/v1/things/{id}', [{ apiKey: ['keys:write'] }]],
      ['/api/v1/things', [{ apiKey: [] }]],
      ['/api/v1/admin/things', [{ operatorToken: [] }]],
      ['/docs', undefined],
    ]);
  });

  it('refuses a declaration without a success response', () => {
    const broken: EndpointDeclaration = { method: 'get', path: '/x', responses: { '404': ok }, auth: 'public' };
    expect(() => successStatus(broken)).toThrow('GET /x documents no success response');
  });
});

import type { OpenAPIRegistry } from '@asteasolutions/zod-to-openapi';
import { defineEndpoint, headersFor, jsonResponse, z } from '@upscaler/http-api';

/** This document (openapi.controller.ts) and the health probes (libs/runtime's health.controller.ts). */

export const HealthIndicatorSchema = z
  .object({ status: z.enum(['up', 'down']), message: z.string().optional() })
  .openapi('HealthIndicator');

export const HealthLiveSchema = z.object({ status: z.literal('ok') }).openapi('HealthLive');

export const HealthReadySchema = z
  .object({
    status: z.enum(['ok', 'error', 'shutting_down']),
    info: z.record(HealthIndicatorSchema).optional(),
    error: z.record(HealthIndicatorSchema).optional(),
    details: z.record(HealthIndicatorSchema),
  })
  .openapi('HealthReady', {
    description: 'The @nestjs/terminus health-check result: one entry per dependency (database, storage, and kafka in distributed mode).',
  });

const OpenApiDocumentSchema = z
  .object({ openapi: z.literal('3.1.0'), info: z.object({}).passthrough(), paths: z.object({}).passthrough() })
  .openapi({ description: 'An OpenAPI 3.1 document.' });

export const META_ENDPOINTS = {
  openApiDocument: defineEndpoint({
    method: 'get',
    path: '/api/v1/openapi.json',
    operationId: 'getOpenApiDocument',
    tags: ['Meta'],
    summary: 'This OpenAPI 3.1 document',
    description:
      'Generated from the schemas that validate the requests and shape the answers; the same as docs/openapi.json in the repository.',
    responses: { '200': jsonResponse('The document.', OpenApiDocumentSchema, 'always') },
    auth: 'public',
  }),
};

/**
 * The health probes, served by libs/runtime's health.controller.ts: registered here by hand, as that lib sits below
 * libs/http-api (where endpoints are declared) and every service answers them, not only the api.
 */
export function registerHealthRoutes(registry: OpenAPIRegistry): void {
  registry.registerPath({
    method: 'get',
    path: '/health/live',
    operationId: 'healthLive',
    description:
      '200 while the process runs and answers HTTP; it does not check dependencies (that is /health/ready). The standalone exits when it loses its database for good, so this never stays 200 on a process that cannot recover.',
    tags: ['Health'],
    summary: 'Liveness: the process answers',
    responses: { '200': jsonResponse('Alive.', HealthLiveSchema, 'never') },
  });

  registry.registerPath({
    method: 'get',
    path: '/health/ready',
    operationId: 'healthReady',
    tags: ['Health'],
    summary: 'Readiness: every dependency answers',
    description: 'Postgres, object storage and (distributed mode) Kafka, each probed with a 3 s limit.',
    responses: {
      '200': jsonResponse('Ready: status ok, every dependency up.', HealthReadySchema, 'never'),
      '503': {
        description: 'Not ready: at least one dependency is down (status error; see error and details).',
        headers: headersFor('never', { 'Retry-After': { $ref: '#/components/headers/Retry-After-Unavailable' } }),
        content: { 'application/json': { schema: HealthReadySchema } },
      },
    },
  });
}

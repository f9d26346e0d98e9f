import { errorResponse, headersFor, jsonResponse, ref, type Json } from './openapi.common';

/** Routes outside the job API: signed downloads (files.controller.ts), health (runtime), this document. */

export const infraPaths: Record<string, Json> = {
  '/api/v1/files/{path}': {
    get: {
      operationId: 'downloadSignedFile',
      tags: ['Files'],
      summary: 'Signed download (embedded storage)',
      description:
        'Where the result endpoint redirects in the embedded mode (local-folder storage). The HMAC signature and expiry in the ' +
        'query are the authorisation: no API key. In the distributed mode signed URLs point at the S3/MinIO host instead.',
      parameters: [
        {
          name: 'path',
          in: 'path',
          required: true,
          description: 'The object path as given in the signed URL (may contain `/`). Take signed URLs as opaque.',
          schema: { type: 'string' },
        },
      ],
      responses: {
        '200': {
          description: 'The file.',
          headers: headersFor('never', {
            'Content-Type': { required: true, schema: { type: 'string' } },
            'Content-Length': { required: true, schema: { type: 'integer', minimum: 0 } },
            'Cache-Control': { required: true, schema: { type: 'string', const: 'private, max-age=300' } },
            'Content-Disposition': {
              description: 'attachment, with the download name (for example `cat-4x.png`) when known.',
              schema: { type: 'string' },
            },
          }),
          content: { 'application/octet-stream': { schema: { contentMediaType: 'application/octet-stream' } } },
        },
        '403': errorResponse(
          403,
          ['forbidden'],
          'never',
          'The signature is invalid or the link has expired: ask the result endpoint for a fresh one.',
        ),
        '500': errorResponse(500, ['internal_error'], 'never'),
      },
    },
  },
  '/api/v1/openapi.json': {
    get: {
      operationId: 'getOpenApiDocument',
      tags: ['Meta'],
      summary: 'This OpenAPI 3.1 document',
      responses: {
        '200': jsonResponse(
          'The document.',
          {
            type: 'object',
            required: ['openapi', 'info', 'paths'],
            properties: { openapi: { type: 'string', const: '3.1.0' }, info: { type: 'object' }, paths: { type: 'object' } },
          },
          'always',
        ),
      },
    },
  },
  '/health/live': {
    get: {
      operationId: 'healthLive',
      tags: ['Health'],
      summary: 'Liveness: the process answers',
      responses: { '200': jsonResponse('Alive.', ref('HealthLive'), 'never') },
    },
  },
  '/health/ready': {
    get: {
      operationId: 'healthReady',
      tags: ['Health'],
      summary: 'Readiness: every dependency answers',
      description: 'Postgres, object storage and (distributed mode) Kafka, each probed with a 3 s limit.',
      responses: {
        '200': jsonResponse('Ready: status ok, every dependency up.', ref('HealthReady'), 'never'),
        '503': jsonResponse(
          'Not ready: at least one dependency is down (status error; see error and details).',
          ref('HealthReady'),
          'never',
          { 'Retry-After': { $ref: '#/components/headers/Retry-After-Unavailable' } },
        ),
      },
    },
  },
};

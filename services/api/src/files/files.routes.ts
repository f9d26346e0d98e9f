import type { OpenAPIRegistry } from '@asteasolutions/zod-to-openapi';
import { errorResponse, headersFor } from '../openapi/responses';
import { z } from '../openapi/zod';

/** Signed downloads of the embedded storage (files.controller.ts) in the OpenAPI document. */

export const FilePathParams = z.object({
  path: z.string().openapi({
    param: {
      name: 'path',
      in: 'path',
      description: 'The object path as given in the signed URL (may contain `/`). Take signed URLs as opaque.',
    },
  }),
});

export function registerFileRoutes(registry: OpenAPIRegistry): void {
  registry.registerPath({
    method: 'get',
    path: '/api/v1/files/{path}',
    operationId: 'downloadSignedFile',
    tags: ['Files'],
    summary: 'Signed download (embedded storage)',
    description:
      'Where the result endpoint redirects in the embedded mode (local-folder storage). The HMAC signature and expiry in the ' +
      'query are the authorisation: no API key. In the distributed mode signed URLs point at the S3/MinIO host instead.',
    request: { params: FilePathParams },
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
  });
}

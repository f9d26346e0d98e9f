import { defineEndpoint, errorResponse, headersFor, z } from '@upscaler/http-api';

/** Signed downloads of the embedded storage (files.controller.ts). */

export const FilePathParams = z.object({
  path: z.string().openapi({
    param: {
      name: 'path',
      in: 'path',
      description: 'The object path as given in the signed URL (may contain `/`). Take signed URLs as opaque.',
    },
  }),
});

/**
 * The query of a signed link (LocalFolderStorage.signedUrl): declared so that a generated client sends it on (left
 * out, every download answers 403). Take the whole URL as opaque; these are listed, not to be built by hand.
 */
export const FileQuery = z.object({
  expires: z
    .string()
    .regex(/^\d{1,12}$/)
    .openapi({ description: 'Expiry of the link, Unix seconds (signed).', example: '1767225600' }),
  name: z
    .string()
    .optional()
    .openapi({ description: 'Download name for Content-Disposition (signed), when the link names one.', example: 'cat-4x.png' }),
  type: z
    .string()
    .optional()
    .openapi({ description: 'Content type to answer with (signed), when the link names one.', example: 'image/png' }),
  sig: z
    .string()
    .regex(/^[0-9a-f]{64}$/)
    .openapi({ description: 'HMAC-SHA256 of path, expires, name and type (hex).' }),
});

/** What a signed download can be: the result's or the source's image format. */
const IMAGE_TYPES = ['image/png', 'image/jpeg', 'image/webp', 'image/avif'] as const;

export const FILE_ENDPOINTS = {
  download: defineEndpoint({
    method: 'get',
    path: '/api/v1/files/{path}',
    wildcard: 'path',
    operationId: 'downloadSignedFile',
    tags: ['Files'],
    summary: 'Signed download (embedded storage)',
    description:
      'Where the result endpoint redirects in the embedded mode (local-folder storage). The HMAC signature and expiry in the ' +
      'query are the authorisation: no API key. In the distributed mode signed URLs point at the S3/MinIO host instead.',
    request: { params: FilePathParams, query: FileQuery },
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
        // the stored object's own type (the link's `type` when it names one): the image formats, as sent
        content: Object.fromEntries(IMAGE_TYPES.map((t) => [t, { schema: { type: 'string', format: 'binary', contentMediaType: t } }])),
      },
      '403': errorResponse(
        403,
        ['forbidden'],
        'never',
        'The signature is invalid or the link has expired: ask the result endpoint for a fresh one.',
      ),
      '500': errorResponse(500, ['internal_error'], 'never'),
    },
    auth: 'public',
  }),
};

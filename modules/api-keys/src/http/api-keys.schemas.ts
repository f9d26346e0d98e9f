import { SCOPES } from '@upscaler/contracts';
import type { ApiKeyView } from '../model/api-key.views';
import { id, idParam, listOf, nullableTimestamp, timestamp, z } from '@upscaler/http-api';

/** API keys' contract (docs/design.md §6): the create body and the key views, for self-service and the operator alike. */

export const ScopeSchema = z.enum(SCOPES).openapi('Scope');

const rateLimitPerMinute = z.number().int().min(1).max(10_000);

export const ApiKeySchema = z
  .object({
    id: id('key', 'API key'),
    object: z.literal('api_key'),
    name: z.string().max(200).nullable(),
    scopes: z.array(ScopeSchema).openapi({ uniqueItems: true }),
    prefix: z
      .string()
      .regex(/^usk_[A-Za-z0-9_-]{8}$/)
      .openapi({ description: 'The first 12 characters of the key, to recognise it.' }),
    rate_limit_per_minute: rateLimitPerMinute
      .nullable()
      .openapi({ description: "This key's own rate; null means the default (UPSCALE_RATE_LIMIT_PER_MINUTE, 60)." }),
    created_at: timestamp('When the key was created.'),
    revoked_at: nullableTimestamp('When the key was revoked; null while usable.'),
  })
  .openapi('ApiKey', { description: 'An API key. The secret itself is shown only once, in the creation answer (ApiKeyCreated).' });

export const ApiKeyCreatedSchema = ApiKeySchema.extend({
  key: z.string().regex(/^usk_[A-Za-z0-9_-]{32}$/),
}).openapi('ApiKeyCreated', {
  description: 'The creation answer: the API key object plus the key in full. This is the only time it is shown.',
});

export const ApiKeyListSchema = listOf(ApiKeySchema, 'Every API key of the account (revoked ones included); never paged.').openapi(
  'ApiKeyList',
);

/** Whatever the schemas accept has the view's TypeScript type (checked by the compiler). */
export const viewsFitTheirSchemas: [
  z.output<typeof ApiKeySchema> extends ApiKeyView ? true : never,
  z.output<typeof ApiKeyCreatedSchema> extends ApiKeyView ? true : never,
] = [true, true];

export const ApiKeyIdParam = idParam('key', 'API key', 'key_0190a1b2c3d47e8f9a0b1c2d3e4f5a6d');
export const ApiKeyPathParams = z.object({ id: ApiKeyIdParam });

export const CreateKeyBody = z.object({
  name: z.string().trim().min(1).max(200).optional().openapi({ description: 'A label (trimmed).' }),
  scopes: z.array(z.enum(SCOPES)).min(1).openapi({ description: 'Duplicates are dropped.' }),
  rate_limit_per_minute: rateLimitPerMinute
    .optional()
    .openapi({ description: "This key's own rate (paid plans). Omitted: the default (UPSCALE_RATE_LIMIT_PER_MINUTE, 60)." }),
});

export const CREATE_KEY_EXAMPLES = { worker: { name: 'worker', scopes: ['jobs:read', 'jobs:write'] } };

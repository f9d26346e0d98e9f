import { extendZodWithOpenApi } from '@asteasolutions/zod-to-openapi';
import { z } from 'zod';
import { ERROR_CODES, type ErrorCode } from '@upscaler/contracts';

/**
 * zod with `.openapi(...)`: every schema of the api imports `z` from here, so that the request schemas
 * that validate a request and the view schemas that shape an answer are the ones the OpenAPI document
 * is generated from (openapi.document.ts).
 */
extendZodWithOpenApi(z);
export { z };

// ---------------------------------------------------------------------------------------------
// Building blocks of the view schemas. No view forbids extra properties: spec 9, rule 2 lets v1 add
// fields, so clients must tolerate them.

/** `job_…`, `acct_…`: the prefix and the 32 hex digits of a UUIDv7 (time-ordered; docs/api.md "Conventions"). */
export const idPattern = (prefix: string): RegExp => new RegExp(`^${prefix}_[0-9a-f]{32}$`);

export const id = (prefix: string, what: string) =>
  z
    .string()
    .regex(idPattern(prefix))
    .openapi({ description: `${what} id: \`${prefix}_\` and 32 hex digits of a UUIDv7 (time-ordered).` });

export const timestamp = (description: string) => z.string().datetime({ offset: true }).openapi({ description });
export const nullableTimestamp = (description: string) => z.string().datetime({ offset: true }).nullable().openapi({ description });
export const nonNegative = (description: string) => z.number().int().min(0).openapi({ description });

/** A list page: `{ object: "list", data, has_more, next_cursor }`. */
export const listOf = <T extends z.ZodTypeAny>(item: T, description: string) =>
  z
    .object({
      object: z.literal('list'),
      data: z.array(item),
      has_more: z.boolean().openapi({ description: 'True while more items exist after this page.' }),
      next_cursor: z
        .string()
        .nullable()
        .openapi({ description: 'Pass as starting_after to get the next page; null when has_more is false.' }),
    })
    .openapi({ description });

/** A path parameter `id` of one kind of resource. Malformed ids are not refused as such: they answer 404 like unknown ones. */
export const idParam = (prefix: string, what: string, example: string) =>
  z.string().openapi({
    param: {
      name: 'id',
      in: 'path',
      description: `${what} id. An id that is malformed, unknown or of another account answers 404.`,
      example,
    },
  });

/** A query or header parameter: its description belongs to the parameter, not to its schema. */
export const param = <T extends z.ZodTypeAny>(schema: T, description: string): T => schema.openapi({ param: { description } });

// ---------------------------------------------------------------------------------------------
// The error envelope (spec 7): `{ "error": { "code", "message" } }`, codes from errors.ts.

const errorCodes = Object.keys(ERROR_CODES) as [ErrorCode, ...ErrorCode[]];

/**
 * The body of every error answer, shared by all of them (components.schemas.Error); each response lists the codes
 * it can carry in its description and examples.
 */
export const ErrorSchema = z
  .object({
    error: z.object({
      code: z.enum(errorCodes),
      message: z.string().openapi({ description: 'Human-readable; may change.' }),
    }),
  })
  .openapi('Error', {
    description:
      'Every error answer (spec 7). Branch on code, never on message. Each response lists the codes it can carry; v1 may add codes (handle an unknown one by its HTTP status).',
  });

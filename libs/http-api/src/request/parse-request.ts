import type { z } from 'zod';
import { DomainError, type ErrorCode } from '@upscaler/contracts';

/**
 * The one way a request's body or query becomes typed input (docs/api.md "Errors"): its zod schema (the same that
 * documents it in the OpenAPI), unknown fields tolerated (spec 9, rule 2), and the first broken rule deciding the
 * answer. A refinement that names a code (`params: { code }`) answers that code with its message; otherwise the
 * field's entry of `errors`; otherwise invalid_request naming the field. Query values go through singleValuedQuery
 * (parse-query.ts) first.
 */
export type FieldErrors = Partial<Record<string, () => DomainError>>;

export function parseWith<T extends z.ZodTypeAny>(schema: T, value: unknown, errors: FieldErrors = {}): z.output<T> {
  const parsed = schema.safeParse(value);
  if (parsed.success) return parsed.data;
  const issue = parsed.error.issues[0];
  const named = issue.code === 'custom' ? (issue.params?.code as ErrorCode | undefined) : undefined;
  if (named) throw new DomainError(named, issue.message);
  const field = issue.path[0];
  const mapped = field === undefined ? undefined : errors[String(field)];
  if (mapped) throw mapped();
  throw new DomainError('invalid_request', `${issue.path.join('.') || 'body'}: ${issue.message}`);
}

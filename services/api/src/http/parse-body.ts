import type { z } from 'zod';
import { DomainError } from '@upscaler/contracts';

/** Validates a JSON body with a zod schema; unknown fields are tolerated (spec 9, rule 2). */
export function parseBody<T extends z.ZodTypeAny>(schema: T, body: unknown): z.infer<T> {
  const parsed = schema.safeParse(body ?? {});
  if (!parsed.success) {
    const msg = parsed.error.issues.map((i) => `${i.path.join('.') || 'body'}: ${i.message}`).join('; ');
    throw new DomainError('invalid_request', msg);
  }
  return parsed.data;
}

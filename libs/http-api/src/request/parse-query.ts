import { DomainError } from '@upscaler/contracts';

/**
 * The query parameters a route reads, each as one string (docs/api.md "Query parameters"). A parameter given
 * as a list, whether repeated (`limit=1&limit=2`) or bracketed (`status[]=x`, `limit[0]=1`), is refused with
 * 400 instead of being read as something else or silently dropped. Parameters the route does not read are
 * ignored, as unknown body fields are.
 */
export function singleValuedQuery<N extends string>(query: unknown, names: readonly N[]): Partial<Record<N, string>> {
  const q = (query ?? {}) as Record<string, unknown>;
  const out: Partial<Record<N, string>> = {};
  for (const name of names) {
    const value = q[name];
    const bracketed = Object.keys(q).some((k) => k.startsWith(`${name}[`));
    if (bracketed || (value !== undefined && typeof value !== 'string')) {
      throw new DomainError('invalid_request', `${name} must be given once, as a single value.`);
    }
    if (value !== undefined) out[name] = value;
  }
  return out;
}

import { SCOPES, type Scope } from '@upscaler/contracts';

/**
 * Spec 5, rules 4-5: each endpoint names one scope and a key must hold exactly that scope. No scope
 * implies another (jobs:write does not grant jobs:read): a key does only what it was given.
 */
export function hasScope(scopes: readonly string[], required: Scope): boolean {
  return scopes.includes(required);
}

export function isScope(value: string): value is Scope {
  return (SCOPES as readonly string[]).includes(value);
}

/** The lowest and highest paid-plan rate a key may carry (docs/design.md §6: at least 1 to 10,000). */
export const MIN_RATE_LIMIT_PER_MINUTE = 1;
export const MAX_RATE_LIMIT_PER_MINUTE = 10_000;

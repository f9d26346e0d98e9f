/**
 * The decider mechanism every capability module's model uses (docs/design.md §1): the Decider type, folding, and
 * given/when/then specs; canonical time helpers and fixed test times. No business noun: the deciders themselves live
 * in the modules (modules/<name>/src/model). No I/O, no clock, no random: times, ids and jitter come in with commands.
 */
export * from './decider';

// Shared helpers.
export * from './shared/time';

// Test helpers (node:assert only, safe in any build): given/when/then, fixtures, seeded PRNG.
export * from './testing/decider-spec';
export * from './testing/time-fixtures';
export * from './testing/seeded-random';

/** Nest injection tokens for the adapters every service shares (built once by `buildRuntime`). */
export const RUNTIME = Symbol('RUNTIME');

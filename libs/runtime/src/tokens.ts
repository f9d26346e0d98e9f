/**
 * Nest injection tokens of the ports every service may use (built once by `buildRuntime`). A class
 * injects the ports it uses, by these tokens or by the repository classes themselves (read models,
 * balances, work queue, metrics, readiness), not the whole runtime.
 */
/** The whole runtime: only the composition (bootstrap, the health and metrics endpoints) uses it. */
export const RUNTIME = Symbol('RUNTIME');
/** `EventStore`: the log, with the inline projections applied inside every append. */
export const EVENT_STORE = Symbol('EVENT_STORE');
/** `EventTransport`: subscriptions to the log and request/reply between services. */
export const TRANSPORT = Symbol('TRANSPORT');
/** `ObjectStorage`: sources and results. */
export const STORAGE = Symbol('STORAGE');
/** `SignedDownloadHandler | undefined`: set with local-folder storage (the api serves signed files). */
export const SIGNED_DOWNLOADS = Symbol('SIGNED_DOWNLOADS');
/** `DataSource` (TypeORM): for a capability module's own repositories (their only I/O). */
export const DATABASE = Symbol('DATABASE');
/** `Clock`. */
export const CLOCK = Symbol('CLOCK');
/** `AppConfig`, validated once at start-up. */
export const CONFIG = Symbol('CONFIG');
/** `Logger` (pino). */
export const LOGGER = Symbol('LOGGER');
/** `'embedded' | 'distributed'`. */
export const RUNTIME_MODE = Symbol('RUNTIME_MODE');

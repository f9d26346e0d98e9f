/**
 * Whether an error says that a backing store (Postgres, the object store or storage folder, the broker) could not be
 * reached or turned work away for a moment (a full or read-only disk included): worth a retry, so the answer is 503 service_unavailable with Retry-After rather
 * than 500 internal_error (docs/api.md "Errors"). A bug or a constraint violation stays a 500.
 *
 * Our own small check rather than a library: it reads the few well-known shapes of the drivers we use (Node's
 * socket errors, node-postgres and pg-pool, TypeORM's QueryFailedError wrapping the driver's error), and no
 * package classifies those together.
 */

/** Node socket and DNS errors: the peer is down, restarting or unreachable. */
const NETWORK_CODES = new Set(['ECONNREFUSED', 'ECONNRESET', 'ETIMEDOUT', 'EHOSTUNREACH', 'ENETUNREACH', 'EPIPE', 'EAI_AGAIN']);

/**
 * File-system errors of the local storage folder that an operator or time fixes (space freed, a volume remounted
 * writable, permissions restored, descriptors closed): the data is fine, the write is worth retrying.
 */
const FILE_SYSTEM_CODES = new Set(['ENOSPC', 'EDQUOT', 'EROFS', 'EIO', 'EACCES', 'EPERM', 'EMFILE', 'ENFILE', 'EBUSY']);

/** S3 / MinIO error codes of a server that is full, overloaded or starting (the minio client's S3Error.code). */
const OBJECT_STORE_CODES = new Set([
  'XMinioStorageFull',
  'XMinioServerNotInitialized',
  'XMinioReadQuorum',
  'XMinioWriteQuorum',
  'SlowDown',
  'ServiceUnavailable',
  'InternalError',
  'RequestTimeout',
]);

/** Out of space: the local disk or quota (ENOSPC, EDQUOT), MinIO's drives, Postgres' disk (53100 disk_full). */
const OUT_OF_SPACE_CODES = new Set(['ENOSPC', 'EDQUOT', 'XMinioStorageFull', '53100']);

/**
 * PostgreSQL SQLSTATEs (https://www.postgresql.org/docs/current/errcodes-appendix.html): class 08 connection
 * exception; 57P01 admin_shutdown, 57P02 crash_shutdown, 57P03 cannot_connect_now (starting up or in recovery);
 * 53100 disk_full, 53300 too_many_connections; 40001 / 40P01 are not here: the handlers retry those themselves.
 */
function isUnavailableSqlState(code: string): boolean {
  return /^08[0-9A-Z]{3}$/.test(code) || code === '57P01' || code === '57P02' || code === '57P03' || code === '53100' || code === '53300';
}

/** node-postgres and pg-pool say these in words only (no code). */
const PG_CONNECTION_MESSAGES = [
  'Connection terminated', // also "... unexpectedly", "... due to connection timeout"
  'timeout exceeded when trying to connect',
  'Client has encountered a connection error and is not queryable',
  'Client was closed and is not queryable',
  'Cannot use a pool after calling end on the pool',
  'Query read timeout',
];

/**
 * Whether `e` or an error it wraps matches: TypeORM's QueryFailedError keeps the driver's error, Error.cause and
 * AggregateError (happy eyeballs) wrap others. At most 5 levels deep.
 */
function anyWrapped(e: unknown, matches: (err: { code?: unknown; message?: unknown }) => boolean, depth = 0): boolean {
  if (depth > 4 || typeof e !== 'object' || e === null) return false;
  const err = e as { code?: unknown; message?: unknown; driverError?: unknown; cause?: unknown; errors?: unknown };
  if (matches(err)) return true;
  if (anyWrapped(err.driverError, matches, depth + 1) || anyWrapped(err.cause, matches, depth + 1)) return true;
  return Array.isArray(err.errors) && err.errors.some((inner) => anyWrapped(inner, matches, depth + 1));
}

export function isDependencyUnavailable(e: unknown): boolean {
  return anyWrapped(e, (err) => {
    if (typeof err.code === 'string') {
      const code = err.code;
      if (NETWORK_CODES.has(code) || FILE_SYSTEM_CODES.has(code) || OBJECT_STORE_CODES.has(code) || isUnavailableSqlState(code))
        return true;
    }
    return typeof err.message === 'string' && PG_CONNECTION_MESSAGES.some((m) => (err.message as string).includes(m));
  });
}

/** Whether the fault is storage out of space (a more useful message than "unavailable"). */
export function isOutOfSpace(e: unknown): boolean {
  return anyWrapped(e, (err) => typeof err.code === 'string' && OUT_OF_SPACE_CODES.has(err.code));
}

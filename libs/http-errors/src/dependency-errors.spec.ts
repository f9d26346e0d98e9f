import { QueryFailedError } from 'typeorm';
import { isDependencyUnavailable, isOutOfSpace } from './dependency-errors';

/** The shapes below are what the drivers throw (logged by a standalone whose Postgres was killed). */
function socketError(code: string): Error {
  return Object.assign(new Error(`connect ${code} 127.0.0.1:31811`), { code, errno: -111, syscall: 'connect' });
}
function pgError(code: string, message: string): Error {
  return Object.assign(new Error(message), { code, severity: 'FATAL' });
}

function fsError(code: string, message: string): Error {
  return Object.assign(new Error(`${code}: ${message}, open '/data/storage/tmp/1f2e.part'`), { code, syscall: 'open' });
}
function s3Error(code: string, message: string): Error {
  return Object.assign(new Error(message), { name: 'S3Error', code });
}

describe('isOutOfSpace', () => {
  it('a full disk, a full quota and a full MinIO are out of space; a read-only disk or a refused connection are not', () => {
    const cases = [
      fsError('ENOSPC', 'x'),
      fsError('EDQUOT', 'x'),
      s3Error('XMinioStorageFull', 'x'),
      fsError('EROFS', 'x'),
      socketError('ECONNREFUSED'),
    ];
    expect(cases.map((e) => isOutOfSpace(e))).toEqual([true, true, true, false, false]);
  });
});

describe('isDependencyUnavailable', () => {
  it.each([
    ['Postgres refused the connection', socketError('ECONNREFUSED')],
    ['the connection was reset', socketError('ECONNRESET')],
    ['the database host does not resolve for now', socketError('EAI_AGAIN')],
    ['admin_shutdown (57P01)', pgError('57P01', 'terminating connection due to administrator command')],
    ['cannot_connect_now (57P03)', pgError('57P03', 'the database system is starting up')],
    ['too_many_connections (53300)', pgError('53300', 'sorry, too many clients already')],
    ['a connection exception (class 08)', pgError('08006', 'connection failure')],
    ['node-postgres lost the socket', new Error('Connection terminated unexpectedly')],
    ['pg-pool waited too long', new Error('timeout exceeded when trying to connect')],
    ['a client whose connection was closed', new Error('Client was closed and is not queryable')],
    [
      'the backend closed it (57P01 unexpected postmaster exit, as a remote handler reports it)',
      Object.assign(new Error('terminating connection due to unexpected postmaster exit'), { name: 'RemoteHandlerError', code: '57P01' }),
    ],
    ['TypeORM wrapping a refused connection', new QueryFailedError('SELECT 1', [], socketError('ECONNREFUSED'))],
    ['an Error whose cause is a shutdown', new Error('append failed', { cause: pgError('57P01', 'terminating connection') })],
    ['an AggregateError of refused addresses', Object.assign(new AggregateError([socketError('ECONNREFUSED')]), {})],
    ['the storage disk is full', fsError('ENOSPC', 'no space left on device')],
    ['the storage folder is read-only', fsError('EROFS', 'read-only file system')],
    ['the storage folder lost its permissions', fsError('EACCES', 'permission denied')],
    ['MinIO is out of space', s3Error('XMinioStorageFull', 'Storage backend has reached its minimum free drive threshold.')],
    ['MinIO asks to slow down', s3Error('SlowDown', 'Resource requested is unreadable, please reduce your request rate')],
  ])('%s: yes', (_what, e) => {
    expect(isDependencyUnavailable(e)).toBe(true);
  });

  it.each([
    ['a unique violation (23505)', pgError('23505', 'duplicate key value violates unique constraint')],
    ['TypeORM wrapping a syntax error (42601)', new QueryFailedError('SELEC 1', [], pgError('42601', 'syntax error'))],
    ['an S3 object that does not exist', s3Error('NoSuchKey', 'The specified key does not exist.')],
    ['a plain bug', new TypeError("Cannot read properties of undefined (reading 'id')")],
    ['not an error at all', 'ECONNREFUSED'],
    ['undefined', undefined],
  ])('%s: no', (_what, e) => {
    expect(isDependencyUnavailable(e)).toBe(false);
  });

  it('stops following a cycle of causes', () => {
    const a: { cause?: unknown } = {};
    a.cause = a;
    expect(isDependencyUnavailable(a)).toBe(false);
  });
});

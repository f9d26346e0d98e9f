import { QueryFailedError } from 'typeorm';
import { isDependencyUnavailable } from './dependency-errors';

/** The shapes below are what the drivers throw (logged by a standalone whose Postgres was killed). */
function socketError(code: string): Error {
  return Object.assign(new Error(`connect ${code} 127.0.0.1:31811`), { code, errno: -111, syscall: 'connect' });
}
function pgError(code: string, message: string): Error {
  return Object.assign(new Error(message), { code, severity: 'FATAL' });
}

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
    ['the backend closed it (57P01 unexpected postmaster exit, as a remote handler reports it)', Object.assign(new Error('terminating connection due to unexpected postmaster exit'), { name: 'RemoteHandlerError', code: '57P01' })],
    ['TypeORM wrapping a refused connection', new QueryFailedError('SELECT 1', [], socketError('ECONNREFUSED'))],
    ['an Error whose cause is a shutdown', new Error('append failed', { cause: pgError('57P01', 'terminating connection') })],
    ['an AggregateError of refused addresses', Object.assign(new AggregateError([socketError('ECONNREFUSED')]), {})],
  ])('%s: yes', (_what, e) => {
    expect(isDependencyUnavailable(e)).toBe(true);
  });

  it.each([
    ['a unique violation (23505)', pgError('23505', 'duplicate key value violates unique constraint')],
    ['TypeORM wrapping a syntax error (42601)', new QueryFailedError('SELEC 1', [], pgError('42601', 'syntax error'))],
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

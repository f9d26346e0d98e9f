export * from './embedded-postgres';
export * from './data-source';
export * from './sql-migration';
export { recoverPostmaster, type RecoveryOutcome } from './postmaster-recovery';
export { freeLoopbackPort, isLoopbackPortFree } from './free-port';

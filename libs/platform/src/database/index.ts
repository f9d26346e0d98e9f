export * from './embedded-postgres';
export * from './data-source';
export { recoverPostmaster, type RecoveryOutcome } from './postmaster-recovery';
export { freeLoopbackPort, isLoopbackPortFree } from './free-port';

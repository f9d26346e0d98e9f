export * from './transport.port';
export * from './kafka';
export * from './in-process';

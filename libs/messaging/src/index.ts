export * from './transport.port';
export * from './kafka';

export * from './transport.port';

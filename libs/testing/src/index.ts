export * from './https';

export * from './object-storage.port';

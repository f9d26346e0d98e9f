export * from './object-storage.port';
export * from './s3';

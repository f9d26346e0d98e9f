export * from './object-storage.port';
export * from './s3';
export * from './local';

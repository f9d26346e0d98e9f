export * from './s3-storage';
export * from './s3-options';

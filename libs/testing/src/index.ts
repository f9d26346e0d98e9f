export * from './https';
export * from './kafka';
export * from './minio';
export * from './infra-scripts';
export * from './postgres';

export * from './https';
export * from './kafka';
export * from './minio';
export * from './infra-scripts';
export * from './postgres';
export * from './standalone';
export * from './api-client';
export * from './images';

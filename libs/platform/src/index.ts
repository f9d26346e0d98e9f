export * from './config/config';
export * from './config/trust-proxy';
export * from './logging/logger';
export * from './http/error.filter';
export * from './http/error-response.hook';
export * from './http/request-id';
export * from './database';
export * from './secrets/load-or-create-secret';

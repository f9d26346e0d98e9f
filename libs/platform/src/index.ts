export * from './config/config';
export * from './logging/logger';
export * from './http/error.filter';
export * from './http/request-id';

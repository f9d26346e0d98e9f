export * from './config/config';
export * from './logging/logger';

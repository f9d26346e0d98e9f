export * from './config/config';
export * from './config/trust-proxy';
export * from './secrets/load-or-create-secret';
export * from './logging/logger';

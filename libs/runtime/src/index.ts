export * from './tokens';
export * from './clock';
export * from './runtime';
export * from './runtime.module';
export * from './health.controller';
export * from './build-runtime';
export * from './http-app';
export * from './bootstrap';

export * from './ssrf-guard';
export * from './https-url';
export * from './guarded-lookup';
export * from './guarded-request';
export * from './read-capped';
export * from './safe-fetch';

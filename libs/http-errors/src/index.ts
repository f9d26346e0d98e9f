export * from './error.filter';
export { isDependencyUnavailable, isOutOfSpace } from './dependency-errors';
export * from './error-response.hook';
export * from './request-id';
export * from './json-answer';

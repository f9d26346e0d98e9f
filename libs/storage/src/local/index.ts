export * from './local-folder-storage';
export { ObjectNotFoundError } from './object-not-found.error';
export { InvalidObjectKeyError, isValidKey } from './object-key';

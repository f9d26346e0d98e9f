export * from './projection-def';
export * from './projector';
export * from './read-model.repository';
export * from './folded-by';
export { ReadModels1732200000100 } from './migrations/1732200000100-read-models';

export * from './projection-def';
export * from './projector';
export * from './read-model.repository';
export * from './definitions';
export { ReadModels1732200000100 } from './migrations/1732200000100-read-models';
export * from './balances/balance.projection';
export * from './balances/balance.repository';
export { Balances1764000000000 } from './migrations/1764000000000-balances';

/**
 * API keys (spec 5, docs/design.md §6): `apikey-…` streams, the /api_keys endpoints, and the guard that authenticates
 * every keyed request, limits its rate and checks its scope.
 */
// model: commands, the decider, the events it owns, the view
export * from './model/api-key.events';
export * from './model/api-key.commands';
export * from './model/api-key.state';
export * from './model/api-key.decider';
export * from './model/api-key.views';
export * from './model/scopes';
// projections
export * from './projections/api-key.projection';
// HTTP: the endpoints, their schemas and OpenAPI, and the guard other modules' endpoints use
export * from './http/api-keys.schemas';
export * from './http/api-keys.routes';
export * from './http/api-keys.service';
export * from './http/admin-keys.routes';
export * from './http/account-lookup.port';
export * from './auth/api-key-secret';
export * from './auth/api-key-cache';
export * from './auth/api-key.guard';
export * from './auth/principal';
// what services compose
export * from './api-keys.module';
export * from './api-keys.capability';

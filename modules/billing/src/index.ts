/**
 * Billing (docs/design.md §1-2): accounts and their credits. `account-…` streams (opening, grants, limits) and one
 * `reservation-<job>` stream per job, written by billing's workers alone; the balances projection that settles a job
 * with its final event; GET /account and the operator's account endpoints.
 */
// model: commands, deciders, the events they own, state, view
export * from './model/account.events';
export * from './model/account.commands';
export * from './model/account.state';
export * from './model/account.decider';
export * from './model/reservation.decider';
export * from './model/account.views';
// messages other capabilities send to billing's workers (request/reply)
export * from './messages/billing-reserve';
export * from './messages/billing-accounts';
// projections: the balances, their guards (no overdraft) and their repository
export * from './projections/balance.projection';
export * from './projections/balance.repository';
export { Balances1764000000000 } from './projections/migrations/1764000000000-balances';
// settings: read at start-up; the jobs' saga waits for billing as long as they say
export * from './billing.config';
// HTTP
export * from './http/accounts.schemas';
export * from './http/account.routes';
export * from './http/admin-accounts.routes';
export * from './http/accounts.service';
// what services compose
export * from './http/accounts-http.module';
export * from './workers/billing-workers.module';
export * from './workers/reserve.responder';
export * from './workers/accounts.responder';
export * from './workers/reservation.sweeper';
export * from './billing.command-handlers';
export * from './billing.capability';

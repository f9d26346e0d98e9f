/**
 * The decider pattern of the emmett library (docs/design.md §2): business rules as two pure functions.
 * `decide` turns a command and the current state into new events (or throws a `DomainError` from
 * @upscaler/contracts); `evolve` folds one event into the state. No clock, no random, no I/O:
 * times, ids and jitter arrive inside the command (contributing/STYLE.md).
 */
export interface Decider<S, C, E extends { type: string; data: unknown }> {
  /** Every type of event the stream may hold: events read from the log are checked against it (`asEvents`). */
  readonly eventTypes: readonly E['type'][];
  initialState(): S;
  decide(command: C, state: S): E[];
  evolve(state: S, event: E): S;
}

/** The state after `events`, folded from the decider's initial state (what a repository does on load). */
export function foldEvents<S, C, E extends { type: string; data: unknown }>(
  decider: Decider<S, C, E>,
  events: readonly E[],
  from: S = decider.initialState(),
): S {
  return events.reduce((state, event) => decider.evolve(state, event), from);
}

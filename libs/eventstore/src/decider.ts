/**
 * The decider pattern of the emmett library (docs/design.md §2): `decide(command, state) -> events`,
 * `evolve(state, event) -> state`. Pure: the domain lib implements it, `handleCommand` runs it
 * against the log. (Structurally identical to the domain lib's own declaration.)
 */
export interface Decider<S, C, E extends { type: string; data: unknown }> {
  /** Every type of event the stream may hold: events read from the log are checked against it (`asEvents`). */
  readonly eventTypes: readonly E['type'][];
  initialState(): S;
  decide(command: C, state: S): E[];
  evolve(state: S, event: E): S;
}

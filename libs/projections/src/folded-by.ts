import { asEvents } from '@upscaler/contracts';
import type { Decider } from '@upscaler/domain';
import type { ProjectionDef } from './projection-def';

/** A stream's own decider folds its read model: the same rules, its events checked as they are folded. */
export function foldedBy<S, E extends { type: string; data: unknown }>(
  decider: Decider<S, unknown, E>,
): Pick<ProjectionDef<S>, 'initialState' | 'evolve'> {
  return {
    initialState: () => decider.initialState(),
    evolve: (s, e) => asEvents(decider.eventTypes, [e]).reduce((state, event) => decider.evolve(state, event), s),
  };
}

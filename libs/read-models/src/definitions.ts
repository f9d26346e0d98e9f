import { deliveryDecider, webhookEndpointDecider, type DeliveryState, type WebhookEndpointState, type Decider } from '@upscaler/domain';
import { asEvents } from '@upscaler/contracts';
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

export const webhookEndpointProjection: ProjectionDef<WebhookEndpointState> = {
  category: 'webhook',
  ...foldedBy(webhookEndpointDecider),
  columns: (s) => ({
    entityId: s.endpoint!.endpointId,
    accountId: s.endpoint!.accountId,
    status: s.status,
    createdAt: s.endpoint!.createdAt,
  }),
};

export const deliveryProjection: ProjectionDef<DeliveryState> = {
  category: 'delivery',
  ...foldedBy(deliveryDecider),
  columns: (s) => ({
    entityId: s.delivery!.deliveryId,
    accountId: s.delivery!.accountId,
    parentId: s.delivery!.endpointId,
    status: s.status,
    nextAt: s.nextAttemptAt,
    createdAt: s.delivery!.scheduledAt,
  }),
};

export const PROJECTIONS: ProjectionDef[] = [webhookEndpointProjection, deliveryProjection] as ProjectionDef[];

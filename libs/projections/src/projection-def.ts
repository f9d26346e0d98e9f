import type { StoredEvent } from '@upscaler/contracts';

/** How one stream category is folded into a `read_models` row. */
export interface ProjectionDef<S = unknown> {
  category: string;
  initialState(): S;
  evolve(state: S, event: { type: string; data: unknown }): S;
  columns(
    state: S,
    streamId: string,
  ): {
    entityId: string;
    accountId: string | null;
    parentId?: string | null;
    status: string | null;
    lookup?: string | null;
    nextAt?: string | null;
    createdAt: string;
  };
}

export type ProjectableEvent = Pick<StoredEvent, 'streamId' | 'version' | 'position' | 'type' | 'data'>;

import type { StoredEvent } from '@upscaler/contracts';

/** A LogTail whose freshness and events the test decides. */
export class FakeTail {
  fresh_ = true;
  following_ = true;
  private readonly handlers = new Map<string, (e: StoredEvent) => void>();
  on(category: string, h: (e: StoredEvent) => void): void {
    this.handlers.set(category, h);
  }
  fresh(): boolean {
    return this.fresh_;
  }
  following(): boolean {
    return this.following_;
  }
  /** The log shows `streamId` at `version`. */
  change(streamId: string, version: number): void {
    this.handlers.get(streamId.split('-')[0])!({ streamId, version } as StoredEvent);
  }
}

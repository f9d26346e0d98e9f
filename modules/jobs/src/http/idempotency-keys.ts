import { Inject, Injectable } from '@nestjs/common';
import { DomainError, streams, type IdempotencyKeyClaimedData, type IdempotencyKeyReleasedData, type JobView } from '@upscaler/contracts';
import { toJobView } from '../model/job.views';
import { type JobState } from '../model/job.state';
import { streamGuards, StreamMovedError, WrongExpectedVersionError, type EventStore, type SqlTx } from '@upscaler/eventstore';
import { ReadModelRepository } from '@upscaler/projections';
import { CLOCK, EVENT_STORE, type Clock } from '@upscaler/runtime';
import { BILLING_SETTINGS, type BillingSettings } from '@upscaler/billing';

/** An earlier request with the key that created no job: released by it, or abandoned (it died or stalled). */
export interface PreviousClaim {
  jobId: string;
  abandoned: boolean;
}

/** What a key stands for now: its job (a replay), or the version to claim it at. */
export interface KeyLookup {
  job: JobView | null;
  version: number;
  previous: PreviousClaim | null;
}

/** This request's claim: the key's stream is at `version` with the claim as its last event. */
export interface KeyClaim {
  stream: string;
  version: number;
  jobId: string;
  previous: PreviousClaim | null;
}

/**
 * Idempotency-Key claims (docs/api.md "Idempotency"; docs/design.md §4), one stream per account and key. A request
 * claims the key for its job id before reserving credits, creates the job only while its claim is still the key's
 * last event (`guardFor`, checked in the job's append transaction), and releases the key when it fails. A request
 * that died between its claim and its job (a crash, a killed pod) leaves a claim without a job: after
 * `abandonAfterMs` the next request with the key takes it over, so a key is never stuck.
 */
@Injectable()
export class IdempotencyKeys {
  constructor(
    @Inject(EVENT_STORE) private readonly store: EventStore,
    @Inject(CLOCK) private readonly clock: Clock,
    @Inject(BILLING_SETTINGS) private readonly billing: BillingSettings,
    private readonly readModels: ReadModelRepository,
  ) {}

  /**
   * How long a claim waits for its job before a retry may take the key over: longer than a live request can take
   * between its claim and its job (a billing round trip, twice over, and the upload to storage), at least 30 s.
   * A live request slower than this loses its claim and answers 409 `idempotency_in_progress`, never a second job.
   */
  get abandonAfterMs(): number {
    return Math.max(30_000, 2 * this.billing.answerTimeoutMs + 10_000);
  }

  /**
   * The job a key already stands for, or where to claim it. While another request holds a fresh claim, waits about
   * 5 s for its job, then answers 409 `idempotency_in_progress`.
   */
  async lookup(accountId: string, stream: string, fingerprint: string): Promise<KeyLookup> {
    for (let i = 0; ; i++) {
      const events = await this.store.readStream(stream);
      const last = events[events.length - 1];
      if (!last) return { job: null, version: 0, previous: null };
      if (last.type === 'IdempotencyKeyReleased') {
        const released = last.data as IdempotencyKeyReleasedData;
        return { job: null, version: events.length, previous: { jobId: released.jobId, abandoned: false } };
      }
      const claim = last.data as IdempotencyKeyClaimedData;
      if (claim.requestHash !== fingerprint) throw new DomainError('idempotency_key_reused');
      const row = await this.readModels.byStream<JobState>(streams.job(claim.jobId));
      if (row && row.accountId === accountId) return { job: toJobView(row.state), version: events.length, previous: null };
      if (this.clock.now().getTime() - Date.parse(claim.claimedAt) > this.abandonAfterMs) {
        return { job: null, version: events.length, previous: { jobId: claim.jobId, abandoned: true } };
      }
      // The holder appends its job right after its claim; give it a moment.
      if (i >= 50) throw new DomainError('idempotency_in_progress');
      await new Promise((r) => setTimeout(r, 100));
    }
  }

  /**
   * Claims the key for `jobId` where `seen` says (an abandoned claim is released in the same append). When another
   * request claims it first, answers with that request's job once it exists (a replay).
   */
  async claim(
    accountId: string,
    stream: string,
    seen: KeyLookup,
    fingerprint: string,
    key: string,
    jobId: string,
  ): Promise<{ replay: JobView } | { claim: KeyClaim }> {
    for (let attempt = 0; attempt < 3; attempt++) {
      const now = this.clock.now().toISOString();
      const claimed = { type: 'IdempotencyKeyClaimed', data: { accountId, key, requestHash: fingerprint, jobId, claimedAt: now } };
      const events = seen.previous?.abandoned
        ? [
            { type: 'IdempotencyKeyReleased', data: { accountId, jobId: seen.previous.jobId, reason: 'abandoned', releasedAt: now } },
            claimed,
          ]
        : [claimed];
      try {
        await this.store.append(stream, seen.version, events);
        return { claim: { stream, version: seen.version + events.length, jobId, previous: seen.previous } };
      } catch (e) {
        if (!(e instanceof WrongExpectedVersionError)) throw e;
        seen = await this.lookup(accountId, stream, fingerprint);
        if (seen.job) return { replay: seen.job };
      }
    }
    throw new DomainError('idempotency_in_progress');
  }

  /** The job may be created only while this claim is the key's last event (not taken over as abandoned). */
  guardFor(claim: KeyClaim): (tx: SqlTx) => Promise<void> {
    return async (tx) => {
      try {
        await streamGuards.atVersion(tx, claim.stream, claim.version);
      } catch (e) {
        if (e instanceof StreamMovedError) throw new DomainError('idempotency_in_progress');
        throw e;
      }
    };
  }

  /** The job was never created: frees the key so that a retry with it is not stuck (best effort: else it is abandoned). */
  async release(accountId: string, claim: KeyClaim, reason: string): Promise<void> {
    await this.store
      .append(claim.stream, claim.version, [
        { type: 'IdempotencyKeyReleased', data: { accountId, jobId: claim.jobId, reason, releasedAt: this.clock.now().toISOString() } },
      ])
      .catch(() => undefined);
  }
}

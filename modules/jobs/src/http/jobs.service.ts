import { Inject, Injectable } from '@nestjs/common';
import {
  CREDITS_OF_TARGET,
  DomainError,
  SCALE_OF_TARGET,
  SIGNED_URL_TTL_SECONDS,
  THUMBNAIL_LINK_WINDOW_SECONDS,
  isId,
  newId,
  streams,
  type JobCancelView,
  type JobCreateView,
  type JobListItemView,
  type JobView,
  type ListView,
  type ResultLinkView,
} from '@upscaler/contracts';
import {
  BILLING_SETTINGS,
  BillingReserveReplySchema,
  type BillingReserveRequest,
  type BillingSettings,
  balanceGuards,
} from '@upscaler/billing';
import { chooseTarget } from '../model/target-policy';
import { filesExpireAt, filesExpired, type JobState } from '../model/job.state';
import { JobCommandHandler } from '../job.command-handler';
import { targetForSize } from '../model/output-size';
import { toCancelView, toCreateView, toListItemView, thumbnailOf } from '../model/job.views';
import { RequestTimeoutError, TOPICS, type EventTransport } from '@upscaler/messaging';
import { ReadModelRepository } from '@upscaler/projections';
import { tierInputBoundMessage } from '@upscaler/engine';
import { eventMetadata, TRANSPORT, STORAGE } from '@upscaler/runtime';
import { currentTraceCarrier, inSpan } from '@upscaler/tracing';
import type { Principal } from '@upscaler/api-keys';
import { ImageInspector } from './image-inspector';
import { ImageSource } from './image-source';
import { requestFingerprint, sha256 } from './idempotency';
import { IdempotencyKeys, type KeyClaim } from './idempotency-keys';
import type { ListJobsQuery } from './jobs.schemas';
import { filenameFromUrl, parseImageUrl, type SubmitFields } from './submit-request';
import type { ObjectStorage } from '@upscaler/storage';
import { JOB_SETTINGS, type JobSettings } from '../jobs.config';

export type SubmitImage = { kind: 'upload'; bytes: Buffer; originalName: string | undefined } | { kind: 'url'; url: unknown };

export interface SubmitOutcome {
  replay: boolean;
  job: JobCreateView | JobView;
}

/** Orchestration of spec 4: load, decide, append, answer (contributing/STYLE.md). */
@Injectable()
export class JobsService {
  constructor(
    private readonly jobs: JobCommandHandler,
    @Inject(TRANSPORT) private readonly transport: EventTransport,
    @Inject(STORAGE) private readonly storage: ObjectStorage,
    @Inject(JOB_SETTINGS) private readonly settings: JobSettings,
    @Inject(BILLING_SETTINGS) private readonly billing: BillingSettings,
    private readonly readModels: ReadModelRepository,
    private readonly inspector: ImageInspector,
    private readonly images: ImageSource,
    private readonly keys: IdempotencyKeys,
  ) {}

  submit(p: Principal, fields: SubmitFields, image: SubmitImage, idempotencyKey: string | null): Promise<SubmitOutcome> {
    return inSpan('api.submit', { 'upscaler.account_id': p.accountId, 'upscaler.target': fields.target }, null, () =>
      this.submitInSpan(p, fields, image, idempotencyKey),
    );
  }

  private async submitInSpan(
    p: Principal,
    fields: SubmitFields,
    image: SubmitImage,
    idempotencyKey: string | null,
  ): Promise<SubmitOutcome> {
    const url = image.kind === 'url' ? parseImageUrl(image.url) : undefined;
    const fingerprint = requestFingerprint({
      target: fields.target,
      format: fields.format,
      quality: fields.quality,
      // Only when not the default (photo is fixed, unlike quality's): a key used before the hint existed keeps its fingerprint.
      ...(fields.content !== 'photo' ? { content: fields.content } : {}),
      filename: fields.filename,
      ...(fields.size ? { size: `${fields.size.width ?? ''}x${fields.size.height ?? ''} ${fields.size.fit}` } : {}),
      image: image.kind === 'upload' ? `sha256:${sha256(image.bytes)}` : `url:${url!.toString()}`,
    });
    const idemStream = idempotencyKey ? streams.idempotency(p.accountId, sha256(idempotencyKey)) : undefined;
    const seen = idemStream ? await this.keys.lookup(p.accountId, idemStream, fingerprint) : null;
    if (seen?.job) return { replay: true, job: seen.job };

    const bytes = image.kind === 'upload' ? image.bytes : (await this.images.fetch(url!)).bytes;
    const probe = await this.inspector.probe(bytes);
    const accepted = this.inspector.acceptedTargets(probe.width, probe.height, fields.format, fields.quality, fields.content);
    const target = fields.size
      ? targetForSize(probe.width, probe.height, fields.size, accepted).target
      : chooseTarget(fields.target, accepted);
    if (target === null) {
      // Said plainly when it is the tier's own input bound (sharp), not the output limit, that refuses the image.
      const quality = fields.quality ?? this.inspector.defaultQuality();
      const bound = this.inspector.tierInputBound(quality, fields.content);
      throw bound !== undefined && probe.width * probe.height > bound
        ? new DomainError('image_too_large_to_upscale', tierInputBoundMessage(quality, bound))
        : new DomainError('image_too_large_to_upscale');
    }
    const credits = CREDITS_OF_TARGET[target];
    const jobId = newId('job');

    // Claim the key before reserving: a concurrent request with the same key then waits for this
    // job instead of reserving credits of its own (which, on a balance that covers one job, would
    // have answered the duplicate 402 instead of the original job).
    let claim: KeyClaim | null = null;
    if (idemStream && seen) {
      const claimed = await this.keys.claim(p.accountId, idemStream, seen, fingerprint, idempotencyKey!, jobId);
      if ('replay' in claimed) return { replay: true, job: claimed.replay };
      claim = claimed.claim;
      // An earlier request with this key made no job but may hold credits (billing answered it too late, or it
      // died): hand them back now instead of at the reservation's expiry. Billing ignores a job id it holds nothing for.
      if (claim.previous) await this.release(p.accountId, claim.previous.jobId).catch(() => undefined);
    }
    const releaseKey = async () => {
      if (claim) await this.keys.release(p.accountId, claim, 'request failed');
    };
    // The list's thumbnail is made while billing reserves (a JPEG decodes at 1/8 size: tens of milliseconds).
    const thumbnail = this.inspector.thumbnail(bytes);
    try {
      await this.reserve({ accountId: p.accountId, jobId, amount: credits });
    } catch (e) {
      await thumbnail;
      await releaseKey();
      throw e;
    }
    try {
      const contentType = `image/${probe.format}`;
      const sourceKey = `sources/${jobId}`;
      const thumbnailKey = `thumbs/${jobId}`;
      const thumb = await thumbnail;
      await Promise.all([
        this.storage.put(sourceKey, bytes, contentType),
        thumb && this.storage.put(thumbnailKey, thumb.bytes, 'image/webp'),
      ]);
      const filename = fields.filename ?? (image.kind === 'upload' ? image.originalName : url ? filenameFromUrl(url) : undefined) ?? null;
      const { newState } = await this.jobs.handle(
        jobId,
        {
          type: 'SubmitJob',
          data: {
            jobId,
            accountId: p.accountId,
            apiKeyId: p.keyId,
            target,
            // a size request asked for no target: the one it needs is what it asked for
            requestedTarget: fields.size ? target : fields.target,
            format: fields.format,
            quality: fields.quality ?? this.inspector.defaultQuality(),
            content: fields.content,
            filename,
            credits,
            source: {
              key: sourceKey,
              bytes: bytes.length,
              contentType,
              format: probe.format,
              width: probe.width,
              height: probe.height,
              ...(thumb ? { thumbnail: { key: thumbnailKey, bytes: thumb.bytes.length, width: thumb.width, height: thumb.height } } : {}),
            },
            ...(fields.size ? { size: fields.size } : {}),
            // the retention promised now holds for this job, whatever the setting later becomes
            ...(this.settings.fileRetentionSeconds !== undefined ? { fileRetentionSeconds: this.settings.fileRetentionSeconds } : {}),
            idempotencyKey,
            // created_at is the instant in the id: the list, ordered by id (docs/design.md §4), is then newest
            // first by created_at too, even for jobs submitted concurrently
            queuedAt: mintedAt(jobId),
          },
        },
        {
          // its credits are still held (not released by billing's expiry while this request was slow), and its
          // Idempotency-Key claim was not taken over as abandoned meanwhile
          guard: async (tx) => {
            await balanceGuards.jobMayBeCreated(tx, jobId);
            if (claim) await this.keys.guardFor(claim)(tx);
          },
          metadata: eventMetadata('api', { correlationId: jobId }),
        },
      );
      return { replay: false, job: toCreateView(newState) };
    } catch (e) {
      await this.release(p.accountId, jobId).catch(() => undefined);
      await releaseKey();
      throw e;
    }
  }

  /** GET /jobs, its query parsed by ListJobsQuery (jobs.schemas.ts). */
  async list(p: Principal, q: ListJobsQuery): Promise<ListView<JobListItemView>> {
    const { limit } = q;
    let startingAfter: string | undefined;
    if (q.starting_after !== undefined && q.starting_after !== '') {
      const cursor = q.starting_after;
      const row = isId(cursor, 'job') ? await this.readModels.byStream<JobState>(streams.job(cursor)) : null;
      if (!row || row.accountId !== p.accountId) throw new DomainError('invalid_cursor');
      startingAfter = cursor;
    }
    const page = await this.readModels.page<JobState>('job', {
      accountId: p.accountId,
      status: q.status,
      limit,
      startingAfter,
    });
    const now = this.jobs.now();
    const data = await Promise.all(page.items.map(async (r) => toListItemView(r.state, await this.thumbnailUrl(r.state, now))));
    return {
      object: 'list',
      data,
      has_more: page.hasMore,
      next_cursor: page.hasMore && data.length > 0 ? data[data.length - 1].id : null,
    };
  }

  async cancel(p: Principal, jobId: string): Promise<JobCancelView> {
    await this.load(p, jobId);
    // JobCancelled is the refund: the balance projection applies it in this append's transaction, so
    // GET /account already shows it when this answers (settled on final), and the processor running
    // the job is told to stop by the work queue's NOTIFY at commit.
    const { newState } = await this.jobs.handle(
      jobId,
      {
        type: 'CancelJob',
        data: { now: this.jobs.now().toISOString() },
      },
      { metadata: eventMetadata('api', { correlationId: jobId }) },
    );
    return toCancelView(newState);
  }

  /** Spec 4.4: a fresh signed link on every call; 409 until succeeded (asset=source: any time). */
  async resultLink(p: Principal, jobId: string, asset: 'result' | 'source'): Promise<ResultLinkView> {
    const state = await this.load(p, jobId);
    const job = state.job!;
    // Retention (docs/operations.md): from files_expire_at on, the files are gone (or about to be: the sweep runs
    // every few seconds), and both assets say so, whether or not the sweep got to them yet.
    if (filesExpired(state, this.jobs.now().toISOString())) {
      throw new DomainError('files_expired', `This job's files were deleted at ${filesExpireAt(state)}.`);
    }
    const stem = (job.filename ?? jobId).replace(/\.[A-Za-z0-9]{1,5}$/, '');
    if (asset === 'source') {
      const url = await this.storage.signedUrl(job.source.key, SIGNED_URL_TTL_SECONDS, {
        downloadName: job.filename ?? `${jobId}.${job.source.format === 'jpeg' ? 'jpg' : job.source.format}`,
        contentType: job.source.contentType,
      });
      return { url, expires_in: SIGNED_URL_TTL_SECONDS, content_type: job.source.contentType, bytes: job.source.bytes };
    }
    if (state.status !== 'succeeded' || !state.result) throw new DomainError('result_not_ready');
    const ext = job.format === 'jpeg' ? 'jpg' : job.format;
    const url = await this.storage.signedUrl(state.result.key, SIGNED_URL_TTL_SECONDS, {
      downloadName: `${stem}-${SCALE_OF_TARGET[job.target]}x.${ext}`,
      contentType: state.result.contentType,
    });
    return { url, expires_in: SIGNED_URL_TTL_SECONDS, content_type: state.result.contentType, bytes: state.result.bytes };
  }

  /**
   * The list's thumbnail link, signed as of the start of the current THUMBNAIL_LINK_WINDOW_SECONDS window, so a list
   * polled within it gives the browser the same URL (cached: the file answers `private, max-age=300`); it stays valid
   * for at least one window after the answer.
   */
  private async thumbnailUrl(state: JobState, now: Date): Promise<string | null> {
    const thumb = thumbnailOf(state, now.toISOString());
    if (!thumb) return null;
    const windowMs = THUMBNAIL_LINK_WINDOW_SECONDS * 1000;
    const signedAt = new Date(Math.floor(now.getTime() / windowMs) * windowMs);
    return this.storage.signedUrl(thumb.key, 2 * THUMBNAIL_LINK_WINDOW_SECONDS, { contentType: 'image/webp', signedAt });
  }

  /** Another account's job is indistinguishable from a missing one (404, not 403). */
  private async load(p: Principal, jobId: string): Promise<JobState> {
    if (!isId(jobId, 'job')) throw new DomainError('job_not_found');
    const row = await this.readModels.byStream<JobState>(streams.job(jobId));
    if (!row || row.accountId !== p.accountId) throw new DomainError('job_not_found');
    return row.state;
  }

  private async reserve(req: BillingReserveRequest): Promise<void> {
    let raw: unknown;
    try {
      const answerBy = new Date(this.jobs.now().getTime() + this.billing.answerTimeoutMs).toISOString();
      raw = await this.transport.request(
        TOPICS.billingReserve,
        { ...req, answerBy, ...currentTraceCarrier() },
        this.billing.answerTimeoutMs,
      );
    } catch (e) {
      if (e instanceof RequestTimeoutError) {
        // A 503 reserves nothing: billing refuses the request if it reads it after answerBy, and a reservation it
        // made just before (its reply late) is handed back now, not at its expiry. Not awaited: the answer is 503.
        void this.release(req.accountId, req.jobId).catch(() => undefined);
        throw new DomainError('billing_unavailable');
      }
      throw e;
    }
    const reply = BillingReserveReplySchema.parse(raw);
    if (!reply.ok) {
      // billing's message has the numbers: "The balance (5) is lower than the 6 credits the job needs."
      if (reply.code === 'too_late') throw new DomainError('billing_unavailable');
      throw reply.code === 'insufficient_credits'
        ? new DomainError('insufficient_credits', reply.message)
        : new DomainError('unauthorized', 'The account of this API key does not exist.');
    }
  }

  /**
   * Hands back a reservation whose job will not be created (a lost idempotency race, a failed store).
   * Billing owns it; when billing does not answer, its expiry sweep releases it later.
   */
  private async release(accountId: string, jobId: string): Promise<void> {
    await this.transport.request(TOPICS.billingRelease, { accountId, jobId }, this.billing.answerTimeoutMs);
  }
}

/** The instant a time-ordered id was minted: the first 48 bits of its UUIDv7 (Unix milliseconds). */
function mintedAt(id: string): string {
  const hex = id.slice(id.indexOf('_') + 1);
  return new Date(parseInt(hex.slice(0, 12), 16)).toISOString();
}

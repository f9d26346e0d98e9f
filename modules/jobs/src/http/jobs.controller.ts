import { Body, Controller, Headers, Param, Query, Req, Res, UploadedFile, UseGuards, UseInterceptors } from '@nestjs/common';
import { FileInterceptor } from '@nestjs/platform-express';
import { memoryStorage } from 'multer';
import type { Request, Response } from 'express';
import { setTimeout as sleep } from 'node:timers/promises';
import { DomainError, MAX_UPLOAD_BYTES, type JobView } from '@upscaler/contracts';
import { weakEtag } from '@upscaler/http-errors';
import { ApiKeyGuard, CurrentPrincipal, type Principal } from '@upscaler/api-keys';
import { Endpoint, singleValuedQuery, parseWith } from '@upscaler/http-api';
import { JOB_ENDPOINTS } from './jobs.routes';
import { parseIdempotencyKey } from './idempotency';
import { JobFinalWaiter } from './job-final-waiter';
import { JobViews } from './job-views';
import { preferenceApplied, preferredWaitSeconds } from './prefer-wait';
import { JobsService } from './jobs.service';
import { parseSubmitFields, sanitizeFilename } from './submit-request';
import { LIST_JOBS_ERRORS, ListJobsQuery, RESULT_QUERY_ERRORS, ResultQuery } from './jobs.schemas';

/** Spec 4: HTTP only — parse with the request schemas (jobs.schemas.ts), call the service, map the result. */
@Controller()
@UseGuards(ApiKeyGuard)
export class JobsController {
  constructor(
    private readonly jobs: JobsService,
    private readonly views: JobViews,
    private readonly waiter: JobFinalWaiter,
  ) {}

  @Endpoint(JOB_ENDPOINTS.createJob)
  @UseInterceptors(
    FileInterceptor('image', {
      storage: memoryStorage(),
      limits: { fileSize: MAX_UPLOAD_BYTES, files: 1, fields: 20, fieldSize: 64 * 1024 },
    }),
  )
  async submit(
    @CurrentPrincipal() p: Principal,
    @Req() req: Request,
    @Res({ passthrough: true }) res: Response,
    @Body() body: Record<string, unknown> | undefined,
    @UploadedFile() file: Express.Multer.File | undefined,
    @Headers('idempotency-key') idempotencyKey: unknown,
    @Headers('prefer') prefer: string | undefined,
  ) {
    const wait = this.preferredWait(prefer, res);
    const key = parseIdempotencyKey(idempotencyKey);
    const fields = parseSubmitFields(body ?? {});
    const isMultipart = req.is('multipart/form-data') !== false && req.is('multipart/form-data') !== null;
    const isJson = !isMultipart && req.is('application/json') !== false && req.is('application/json') !== null;
    if (!isMultipart && !isJson) {
      throw new DomainError('invalid_request', 'Send multipart/form-data with an image file, or application/json with image_url.');
    }
    if (isMultipart && !file) throw new DomainError('invalid_request', 'The multipart field "image" (a file) is required.');
    const outcome = await this.jobs.submit(
      p,
      fields,
      file
        ? { kind: 'upload', bytes: file.buffer, originalName: sanitizeFilename(file.originalname ?? '') }
        : { kind: 'url', url: body?.image_url },
      key,
    );
    if (wait) {
      const job = await this.viewOnceFinal(p, outcome.job.id, wait);
      if (isFinal(job)) {
        res.status(200);
        return job;
      }
    }
    res.status(outcome.replay ? 200 : 202);
    return outcome.job;
  }

  @Endpoint(JOB_ENDPOINTS.listJobs)
  list(@CurrentPrincipal() p: Principal, @Query() q: unknown) {
    return this.jobs.list(p, parseWith(ListJobsQuery, singleValuedQuery(q, ['limit', 'starting_after', 'status']), LIST_JOBS_ERRORS));
  }

  @Endpoint(JOB_ENDPOINTS.getJob)
  async get(
    @CurrentPrincipal() p: Principal,
    @Param('id') id: string,
    @Headers('prefer') prefer: string | undefined,
    @Headers('if-none-match') ifNoneMatch: string | undefined,
    @Res({ passthrough: true }) res: Response,
  ) {
    // also answered before Express, by JobPollFastPath (not when Prefer asks to wait): the same answer
    const wait = this.preferredWait(prefer, res);
    const has = ifNoneMatch?.split(',').map((t) => t.trim());
    let view: JobView;
    if (!wait) view = await this.views.get(p, id);
    else view = has ? await this.viewOnceChanged(p, id, wait, has) : await this.viewOnceFinal(p, id, wait);
    // If-None-Match answered here, not by Express: fetch() sends a request carrying it with Cache-Control: no-cache,
    // on which Express's freshness check never answers 304 (RFC 9110 13.1.2 asks the origin to all the same)
    if (!has) return view;
    const etag = weakEtag(JSON.stringify(view));
    if (has.includes(etag) || has.includes('*')) {
      res.status(304).setHeader('ETag', etag);
      return undefined;
    }
    return view;
  }

  @Endpoint(JOB_ENDPOINTS.downloadResult)
  async result(@CurrentPrincipal() p: Principal, @Param('id') id: string, @Query() q: unknown, @Res({ passthrough: true }) res: Response) {
    const { redirect, asset } = parseWith(ResultQuery, singleValuedQuery(q, ['redirect', 'asset']), RESULT_QUERY_ERRORS);
    const link = await this.jobs.resultLink(p, id, asset);
    res.setHeader('Cache-Control', 'no-store');
    if (!redirect) return link;
    res.status(302).setHeader('Location', link.url);
    return undefined;
  }

  @Endpoint(JOB_ENDPOINTS.cancelJob)
  cancel(@CurrentPrincipal() p: Principal, @Param('id') id: string) {
    return this.jobs.cancel(p, id);
  }

  /** Prefer: wait=N: the seconds to wait, said back in Preference-Applied; answers vary by Prefer. */
  private preferredWait(prefer: string | undefined, res: Response): number | undefined {
    res.vary('Prefer');
    const wait = preferredWaitSeconds(prefer);
    if (wait !== undefined) res.set(preferenceApplied(wait));
    return wait;
  }

  /**
   * Prefer: wait=N with If-None-Match (docs/api.md, "Waiting for a change"): the view as soon as it differs from the
   * one the caller has (its ETag: the status moved, progress rose, or the job ended), else after `seconds` as it is
   * (answered 304 by `get`: its ETag still matches). Events release the wait at once (JobFinalWaiter.untilEvent);
   * progress is not an event, so a running job's view is looked at every PROGRESS_LOOK_MS (a map lookup).
   */
  private async viewOnceChanged(p: Principal, jobId: string, seconds: number, has: string[]): Promise<JobView> {
    const deadline = Date.now() + seconds * 1000;
    for (;;) {
      const left = deadline - Date.now();
      const event = this.waiter.untilEvent(jobId, Math.max(0, left));
      try {
        const now = await this.views.get(p, jobId);
        if (isFinal(now) || left <= 0 || !has.includes(weakEtag(JSON.stringify(now)))) return now;
        await (now.status === 'processing' ? Promise.race([event.done, sleep(Math.min(left, PROGRESS_LOOK_MS))]) : event.done);
      } finally {
        event.cancel();
      }
    }
  }

  /** The job's view as soon as it is final, or after `seconds` as it is then (no polling: JobFinalWaiter). */
  private async viewOnceFinal(p: Principal, jobId: string, seconds: number): Promise<JobView> {
    const final = this.waiter.untilFinal(jobId, seconds * 1000);
    try {
      const now = await this.views.get(p, jobId);
      if (isFinal(now)) return now;
      await final.done;
      return await this.views.get(p, jobId);
    } finally {
      final.cancel();
    }
  }
}

/** How often a waiting request looks at a running job's progress (processors report it 4 times a second at most). */
const PROGRESS_LOOK_MS = 250;

function isFinal(job: JobView): boolean {
  return job.status === 'succeeded' || job.status === 'failed' || job.status === 'cancelled';
}

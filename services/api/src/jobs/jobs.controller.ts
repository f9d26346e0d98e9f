import {
  Body,
  Controller,
  Delete,
  Get,
  Headers,
  HttpCode,
  Param,
  Post,
  Query,
  Req,
  Res,
  UploadedFile,
  UseGuards,
  UseInterceptors,
} from '@nestjs/common';
import { FileInterceptor } from '@nestjs/platform-express';
import { memoryStorage } from 'multer';
import type { Request, Response } from 'express';
import { DomainError, MAX_UPLOAD_BYTES, type JobView } from '@upscaler/contracts';
import { ApiKeyGuard } from '../auth/api-key.guard';
import { CurrentPrincipal, type Principal } from '../auth/principal';
import { RequireScope } from '../auth/scopes.decorator';
import { singleValuedQuery } from '../http/parse-query';
import { parseWith } from '../openapi/zod';
import { parseIdempotencyKey } from './idempotency';
import { JobFinalWaiter } from './job-final-waiter';
import { JobViews } from './job-views';
import { preferenceApplied, preferredWaitSeconds } from './prefer-wait';
import { JobsService } from './jobs.service';
import { parseSubmitFields, sanitizeFilename } from './submit-request';
import { LIST_JOBS_ERRORS, ListJobsQuery, RESULT_QUERY_ERRORS, ResultQuery } from './jobs.schemas';

/** Spec 4: HTTP only — parse with the request schemas (jobs.schemas.ts), call the service, map the result. */
@Controller('api/v1')
@UseGuards(ApiKeyGuard)
export class JobsController {
  constructor(
    private readonly jobs: JobsService,
    private readonly views: JobViews,
    private readonly waiter: JobFinalWaiter,
  ) {}

  @Post('upscale')
  @RequireScope('jobs:write')
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

  @Get('jobs')
  @RequireScope('jobs:read')
  list(@CurrentPrincipal() p: Principal, @Query() q: unknown) {
    return this.jobs.list(p, parseWith(ListJobsQuery, singleValuedQuery(q, ['limit', 'starting_after', 'status']), LIST_JOBS_ERRORS));
  }

  @Get('jobs/:id')
  @RequireScope('jobs:read')
  async get(
    @CurrentPrincipal() p: Principal,
    @Param('id') id: string,
    @Headers('prefer') prefer: string | undefined,
    @Res({ passthrough: true }) res: Response,
  ) {
    // also answered before Express, by JobPollFastPath (not when Prefer asks to wait): the same answer
    const wait = this.preferredWait(prefer, res);
    return wait ? this.viewOnceFinal(p, id, wait) : this.views.get(p, id);
  }

  @Get('jobs/:id/result')
  @RequireScope('jobs:read')
  async result(@CurrentPrincipal() p: Principal, @Param('id') id: string, @Query() q: unknown, @Res({ passthrough: true }) res: Response) {
    const { redirect, asset } = parseWith(ResultQuery, singleValuedQuery(q, ['redirect', 'asset']), RESULT_QUERY_ERRORS);
    const link = await this.jobs.resultLink(p, id, asset);
    res.setHeader('Cache-Control', 'no-store');
    if (!redirect) return link;
    res.status(302).setHeader('Location', link.url);
    return undefined;
  }

  @Delete('jobs/:id')
  @HttpCode(200)
  @RequireScope('jobs:write')
  cancel(@CurrentPrincipal() p: Principal, @Param('id') id: string) {
    return this.jobs.cancel(p, id);
  }

  /** Prefer: wait=N (issue 16, item 2): the seconds to wait, said back in Preference-Applied; answers vary by Prefer. */
  private preferredWait(prefer: string | undefined, res: Response): number | undefined {
    res.vary('Prefer');
    const wait = preferredWaitSeconds(prefer);
    if (wait !== undefined) res.set(preferenceApplied(wait));
    return wait;
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

function isFinal(job: JobView): boolean {
  return job.status === 'succeeded' || job.status === 'failed' || job.status === 'cancelled';
}

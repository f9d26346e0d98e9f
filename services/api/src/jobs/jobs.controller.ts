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
import { DomainError, MAX_UPLOAD_BYTES } from '@upscaler/contracts';
import { ApiKeyGuard } from '../auth/api-key.guard';
import { CurrentPrincipal, type Principal } from '../auth/principal';
import { RequireScope } from '../auth/scopes.decorator';
import { singleValuedQuery } from '../http/parse-query';
import { parseWith } from '../openapi/zod';
import { parseIdempotencyKey } from './idempotency';
import { JobViews } from './job-views';
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
  ) {
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
  get(@CurrentPrincipal() p: Principal, @Param('id') id: string) {
    // also answered before Express, by JobPollFastPath: the same answer
    return this.views.get(p, id);
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
}

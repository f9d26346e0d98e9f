import { Controller, Inject, Req, Res } from '@nestjs/common';
import type { Request, Response } from 'express';
import { DomainError } from '@upscaler/contracts';
import { Endpoint } from '@upscaler/http-api';
import { SIGNED_DOWNLOADS } from '@upscaler/runtime';
import type { SignedDownloadHandler } from '@upscaler/storage';
import { FILE_ENDPOINTS } from './files.routes';

/**
 * Signed downloads of the local-folder storage (embedded mode, docs/design.md §3). The HMAC signature in the
 * query is the authorisation: no API key, so a plain redirect can be followed.
 */
@Controller()
export class FilesController {
  constructor(@Inject(SIGNED_DOWNLOADS) private readonly signedDownloads: SignedDownloadHandler | undefined) {}

  @Endpoint(FILE_ENDPOINTS.download)
  async download(@Req() req: Request, @Res() res: Response): Promise<void> {
    const handler = this.signedDownloads;
    const file = handler ? await handler.open(req.originalUrl) : null;
    if (!file) throw new DomainError('forbidden', 'The download link is invalid or has expired.');
    res.status(200);
    res.setHeader('Content-Type', file.contentType);
    res.setHeader('Content-Length', String(file.bytes));
    res.setHeader('Cache-Control', 'private, max-age=300');
    if (file.downloadName) {
      res.setHeader('Content-Disposition', `attachment; filename*=UTF-8''${encodeURIComponent(file.downloadName)}`);
    }
    file.stream.pipe(res);
  }
}

import { Controller, Get, Res } from '@nestjs/common';
import type { Response } from 'express';
import { DOCS_PAGE, DOCS_START_JS, swaggerUiAsset } from './docs.assets';
import { DOCS_HEADERS } from './docs.headers';

/** GET /docs: the API reference page, rendering GET /api/v1/openapi.json. No key, like the dashboard. */
@Controller('docs')
export class DocsController {
  private readonly bundle = swaggerUiAsset('swagger-ui-bundle.js');
  private readonly css = swaggerUiAsset('swagger-ui.css');

  @Get()
  index(@Res() res: Response): void {
    send(res, 'text/html; charset=utf-8', DOCS_PAGE);
  }

  @Get('swagger-ui-bundle.js')
  script(@Res() res: Response): void {
    send(res, 'text/javascript; charset=utf-8', this.bundle);
  }

  @Get('swagger-ui.css')
  style(@Res() res: Response): void {
    send(res, 'text/css; charset=utf-8', this.css);
  }

  @Get('start.js')
  start(@Res() res: Response): void {
    send(res, 'text/javascript; charset=utf-8', DOCS_START_JS);
  }
}

function send(res: Response, contentType: string, body: string): void {
  res.set(DOCS_HEADERS);
  res.type(contentType);
  res.status(200).send(body);
}

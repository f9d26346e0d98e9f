import { Controller, Res } from '@nestjs/common';
import { Endpoint } from '@upscaler/http-api';
import type { Response } from 'express';
import { DOCS_PAGE, DOCS_START_JS, swaggerUiAsset } from './docs.assets';
import { DOCS_HEADERS } from './docs.headers';
import { DOCS_ENDPOINTS } from './docs.routes';

/** GET /docs: the API reference page, rendering GET /api/v1/openapi.json. No key, like the dashboard. */
@Controller()
export class DocsController {
  private readonly bundle = swaggerUiAsset('swagger-ui-bundle.js');
  private readonly css = swaggerUiAsset('swagger-ui.css');

  @Endpoint(DOCS_ENDPOINTS.index)
  index(@Res() res: Response): void {
    send(res, 'text/html; charset=utf-8', DOCS_PAGE);
  }

  @Endpoint(DOCS_ENDPOINTS.script)
  script(@Res() res: Response): void {
    send(res, 'text/javascript; charset=utf-8', this.bundle);
  }

  @Endpoint(DOCS_ENDPOINTS.style)
  style(@Res() res: Response): void {
    send(res, 'text/css; charset=utf-8', this.css);
  }

  @Endpoint(DOCS_ENDPOINTS.start)
  start(@Res() res: Response): void {
    send(res, 'text/javascript; charset=utf-8', DOCS_START_JS);
  }
}

function send(res: Response, contentType: string, body: string): void {
  res.set(DOCS_HEADERS);
  res.type(contentType);
  res.status(200).send(body);
}

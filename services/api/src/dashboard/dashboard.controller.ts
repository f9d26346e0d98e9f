import { Controller, Get, Res } from '@nestjs/common';
import type { Response } from 'express';
import { DASHBOARD_CSS } from './assets/app.css';
import { DASHBOARD_JS } from './assets/app.js';
import { DASHBOARD_ICON } from './assets/favicon.svg';
import { dashboardPage } from './assets/page.html';
import { DASHBOARD_HEADERS } from './dashboard.headers';

/**
 * The account dashboard (docs/design.md §4): one static page plus its script and stylesheet. It needs no
 * auth of its own: the page asks for an API key and calls the public /api/v1 with it, so it can do
 * exactly what that key's scopes allow and nothing more.
 */
@Controller('dashboard')
export class DashboardController {
  private readonly page = dashboardPage();

  @Get()
  index(@Res() res: Response): void {
    send(res, 'text/html; charset=utf-8', this.page);
  }

  @Get('app.js')
  script(@Res() res: Response): void {
    send(res, 'text/javascript; charset=utf-8', DASHBOARD_JS);
  }

  @Get('app.css')
  style(@Res() res: Response): void {
    send(res, 'text/css; charset=utf-8', DASHBOARD_CSS);
  }

  @Get('favicon.svg')
  icon(@Res() res: Response): void {
    send(res, 'image/svg+xml; charset=utf-8', DASHBOARD_ICON);
  }
}

function send(res: Response, contentType: string, body: string): void {
  res.set(DASHBOARD_HEADERS);
  res.type(contentType);
  res.status(200).send(body);
}

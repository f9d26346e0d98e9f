import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { Controller, Inject, Res } from '@nestjs/common';
import type { Response } from 'express';
import type { AppConfig } from '@upscaler/config';
import { Endpoint } from '@upscaler/http-api';
import { CONFIG } from '@upscaler/runtime';
import { DASHBOARD_ENDPOINTS } from './dashboard.routes';
import { dashboardHeaders } from './dashboard.headers';

/**
 * The account dashboard (docs/design.md §4, docs/dashboard.md): one static page plus its script,
 * stylesheet and icon. It needs no auth of its own: the page asks for an API key and calls the public
 * /api/v1 with it, so it can do exactly what that key's scopes allow and nothing more.
 *
 * The files are the build of services/api/dashboard (its build.mjs, run by `npm run build`) in
 * dist/services/api/dashboard, read once at start.
 */
/** The page's empty storage-origin <meta> (index.html; dashboard.assets.spec.ts checks it is there), filled at start. */
export const STORAGE_ORIGIN_META = '<meta name="upscaler-storage-origin" content=""';

@Controller()
export class DashboardController {
  private readonly files: Record<DashboardFile, string> | null;
  private readonly headers: Readonly<Record<string, string>>;

  /** In distributed mode the page reads signed links of the S3 public origin: its CSP and its <meta> name it. */
  constructor(@Inject(CONFIG) config: AppConfig) {
    const storageOrigin = config.s3 ? new URL(config.s3.publicEndpoint).origin : null;
    this.headers = dashboardHeaders(storageOrigin);
    const files = loadDashboardFiles();
    this.files = files && {
      ...files,
      'index.html': files['index.html'].replace(
        STORAGE_ORIGIN_META,
        STORAGE_ORIGIN_META.replace('content=""', `content="${storageOrigin ?? ''}"`),
      ),
    };
  }

  @Endpoint(DASHBOARD_ENDPOINTS.index)
  index(@Res() res: Response): void {
    this.send(res, 'index.html', 'text/html; charset=utf-8');
  }

  @Endpoint(DASHBOARD_ENDPOINTS.script)
  script(@Res() res: Response): void {
    this.send(res, 'app.js', 'text/javascript; charset=utf-8');
  }

  @Endpoint(DASHBOARD_ENDPOINTS.style)
  style(@Res() res: Response): void {
    this.send(res, 'app.css', 'text/css; charset=utf-8');
  }

  @Endpoint(DASHBOARD_ENDPOINTS.icon)
  icon(@Res() res: Response): void {
    this.send(res, 'favicon.svg', 'image/svg+xml; charset=utf-8');
  }

  private send(res: Response, file: DashboardFile, contentType: string): void {
    res.set(this.headers);
    const body = this.files?.[file];
    if (body === undefined) {
      res.type('text/plain; charset=utf-8');
      res.status(503).send('The dashboard is not built: run `npm run build` (services/api/dashboard/build.mjs).\n');
      return;
    }
    res.type(contentType);
    res.status(200).send(body);
  }
}

export const DASHBOARD_FILES = ['index.html', 'app.js', 'app.css', 'favicon.svg'] as const;
type DashboardFile = (typeof DASHBOARD_FILES)[number];

/**
 * The built files: beside the compiled api (dist/services/api/src/dashboard -> dist/services/api/dashboard),
 * or, when this file runs from source (jest), in the repository's dist/. Null when neither holds a build.
 */
export function loadDashboardFiles(dirs = dashboardDirs()): Record<DashboardFile, string> | null {
  const dir = dirs.find((d) => DASHBOARD_FILES.every((f) => existsSync(join(d, f))));
  if (!dir) return null;
  return Object.fromEntries(DASHBOARD_FILES.map((f) => [f, readFileSync(join(dir, f), 'utf8')])) as Record<DashboardFile, string>;
}

function dashboardDirs(): string[] {
  return [join(__dirname, '..', '..', 'dashboard'), join(__dirname, '..', '..', '..', '..', 'dist', 'services', 'api', 'dashboard')];
}

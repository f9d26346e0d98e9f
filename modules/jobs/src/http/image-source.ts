import { Inject, Injectable } from '@nestjs/common';
import { MAX_UPLOAD_BYTES } from '@upscaler/contracts';
import { safeFetch } from '@upscaler/safe-fetch';
import { CONFIG } from '@upscaler/runtime';
import type { AppConfig } from '@upscaler/config';

/**
 * Fetches an image_url (spec 4.1 B): HTTPS only, SSRF-guarded on every resolved address and
 * redirect, size checked while streaming (413 past 10 MiB), time bounded (docs/design.md §4).
 */
@Injectable()
export class ImageSource {
  constructor(@Inject(CONFIG) private readonly config: AppConfig) {}

  async fetch(url: URL): Promise<{ bytes: Buffer; finalUrl: string }> {
    const res = await safeFetch(url.toString(), {
      maxBytes: MAX_UPLOAD_BYTES,
      timeoutMs: 20_000,
      maxRedirects: 5,
      allowPrivateNetworks: this.config.allowPrivateNetworks,
    });
    return { bytes: res.body, finalUrl: res.finalUrl };
  }
}

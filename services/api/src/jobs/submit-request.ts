import { z } from 'zod';
import {
  DomainError,
  OUTPUT_FORMATS,
  QUALITY_TIERS,
  TARGETS,
  type OutputFormat,
  type QualityTier,
  type Target,
} from '@upscaler/contracts';

/** POST /upscale fields (spec 4.1). Unknown fields are tolerated (spec 9, rule 2). */
export interface SubmitFields {
  target: Target;
  format: OutputFormat;
  quality: QualityTier | undefined;
  filename: string | undefined;
}

const optionalText = z.union([z.string(), z.undefined(), z.null()]).transform((v) => (v === null || v === '' ? undefined : v));

export function parseSubmitFields(body: Record<string, unknown>): SubmitFields {
  const target = optionalText.safeParse(body.target);
  const format = optionalText.safeParse(body.format);
  const quality = optionalText.safeParse(body.quality);
  const filename = optionalText.safeParse(body.filename);
  const t = target.success ? (target.data ?? '2k') : undefined;
  if (t === undefined || !(TARGETS as readonly string[]).includes(t)) throw new DomainError('invalid_target');
  const f = format.success ? (format.data ?? 'png') : undefined;
  if (f === undefined || !(OUTPUT_FORMATS as readonly string[]).includes(f)) throw new DomainError('invalid_format');
  if (!quality.success || (quality.data !== undefined && !(QUALITY_TIERS as readonly string[]).includes(quality.data))) {
    throw new DomainError('invalid_request', 'quality must be one of fast, balanced, best.');
  }
  if (!filename.success || (filename.data !== undefined && filename.data.length > 255)) {
    throw new DomainError('invalid_request', 'filename must be a string of at most 255 characters.');
  }
  return {
    target: t as Target,
    format: f as OutputFormat,
    quality: quality.data as QualityTier | undefined,
    filename: filename.data === undefined ? undefined : sanitizeFilename(filename.data),
  };
}

export function parseImageUrl(value: unknown): URL {
  if (typeof value !== 'string' || value.length === 0) {
    throw new DomainError('invalid_request', 'image_url is required (or send the image as multipart form data).');
  }
  let url: URL;
  try {
    url = new URL(value);
  } catch {
    throw new DomainError('invalid_image_url', 'image_url is not a valid URL.');
  }
  if (url.protocol !== 'https:') throw new DomainError('invalid_image_url', 'image_url must use https.');
  if (url.username || url.password) throw new DomainError('invalid_image_url', 'image_url must not carry credentials.');
  return url;
}

/** Display names only: strip paths and control characters. */
export function sanitizeFilename(name: string): string | undefined {
  const base = name.split(/[\\/]/).pop() ?? '';
   
  const clean = base.replace(/[\u0000-\u001f\u007f]/g, '').trim().slice(0, 255);
  return clean.length > 0 ? clean : undefined;
}

export function filenameFromUrl(url: URL): string | undefined {
  const last = decodeURIComponent(url.pathname.split('/').pop() ?? '');
  return sanitizeFilename(last);
}

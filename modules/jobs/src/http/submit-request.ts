import { DomainError, type ContentHint, type OutputFormat, type QualityTier, type RequestedSize, type Target } from '@upscaler/contracts';
import { parseWith, z } from '@upscaler/http-api';
import { ImageUrlSchema, SUBMIT_FIELD_ERRORS, SubmitFieldsSchema } from './jobs.schemas';

/** POST /upscale fields (spec 4.1). Unknown fields are tolerated (spec 9, rule 2). */
export interface SubmitFields {
  target: Target;
  format: OutputFormat;
  quality: QualityTier | undefined;
  /** The content hint; photo when the request leaves it out. */
  content: ContentHint;
  filename: string | undefined;
  /** A pixel size instead of a target (width and/or height; docs/api.md "Output by pixel size"). */
  size: RequestedSize | undefined;
}

/** POST /upscale's fields, parsed with their schema (jobs.schemas.ts), each failure answering its own code. */
export function parseSubmitFields(body: Record<string, unknown>): SubmitFields {
  const fields = parseWith(SubmitFieldsSchema, body, SUBMIT_FIELD_ERRORS);
  const sized = fields.width != null || fields.height != null;
  if (sized && fields.target != null) throw new DomainError('invalid_size', 'Give target or a size (width, height), not both.');
  if (!sized && fields.fit != null) throw new DomainError('invalid_size', 'fit needs width and height.');
  return {
    target: fields.target ?? '2k',
    format: fields.format ?? 'png',
    quality: fields.quality ?? undefined,
    content: fields.content ?? 'photo',
    filename: fields.filename == null ? undefined : sanitizeFilename(fields.filename),
    size: sized ? { width: fields.width ?? null, height: fields.height ?? null, fit: fields.fit ?? 'within' } : undefined,
  };
}

/** image_url: an HTTPS URL without credentials (ImageUrlSchema); missing or empty is invalid_request. */
export function parseImageUrl(value: unknown): URL {
  return parseWith(z.object({ image_url: ImageUrlSchema }), { image_url: value }, SUBMIT_FIELD_ERRORS).image_url;
}

/** Display names only: strip paths and control characters. */
export function sanitizeFilename(name: string): string | undefined {
  const base = name.split(/[\\/]/).pop() ?? '';

  const clean = base
    .replace(/[\u0000-\u001f\u007f]/g, '')
    .trim()
    .slice(0, 255);
  return clean.length > 0 ? clean : undefined;
}

export function filenameFromUrl(url: URL): string | undefined {
  const last = decodeURIComponent(url.pathname.split('/').pop() ?? '');
  return sanitizeFilename(last);
}

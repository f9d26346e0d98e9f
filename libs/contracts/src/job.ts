/** Vocabulary of spec sections 1-3. */
export const TARGETS = ['2k', '3k', '4k'] as const;
export type Target = (typeof TARGETS)[number];

export const SCALE_OF_TARGET: Record<Target, 2 | 3 | 4> = { '2k': 2, '3k': 3, '4k': 4 };
/** Spec 1, output size table. */
export const CREDITS_OF_TARGET: Record<Target, number> = { '2k': 3, '3k': 6, '4k': 9 };

/**
 * Output by pixel size (additive request fields width / height / fit, docs/api.md "Output by pixel size"): how a
 * result asked for by both width and height fits them. within: the largest size inside both, aspect kept; cover:
 * exactly width x height, aspect kept, the overflow cropped evenly from both sides; exact: exactly width x height,
 * stretched. With one side given, the other follows the aspect ratio and fit changes nothing.
 */
export const SIZE_FITS = ['within', 'cover', 'exact'] as const;
export type SizeFit = (typeof SIZE_FITS)[number];
/** The widest or tallest result a request may ask for (JPEG's limit, the largest of the encoders'). */
export const MAX_REQUESTED_SIDE = 65_500;

/** A requested output size: at least one of width and height (pixels). */
export interface RequestedSize {
  width: number | null;
  height: number | null;
  fit: SizeFit;
}

export const OUTPUT_FORMATS = ['png', 'jpeg', 'webp', 'avif'] as const;
export type OutputFormat = (typeof OUTPUT_FORMATS)[number];
export const CONTENT_TYPE_OF_FORMAT: Record<OutputFormat, string> = {
  png: 'image/png',
  jpeg: 'image/jpeg',
  webp: 'image/webp',
  avif: 'image/avif',
};

export const INPUT_FORMATS = ['jpeg', 'png', 'webp', 'avif'] as const;
export type InputFormat = (typeof INPUT_FORMATS)[number];

export const JOB_STATUSES = ['pending', 'queued', 'processing', 'succeeded', 'failed', 'cancelled'] as const;
export type JobStatus = (typeof JOB_STATUSES)[number];
export const FINAL_STATUSES: readonly JobStatus[] = ['succeeded', 'failed', 'cancelled'];
export function isFinalStatus(s: JobStatus): boolean {
  return FINAL_STATUSES.includes(s);
}

/**
 * Quality tiers (additive request field `quality`); each maps to a network in the engine registry. `fast`,
 * `balanced` and `best` are fidelity tiers (PSNR); `sharp` runs a generative network, Real-ESRGAN,
 * which synthesises texture and hard edges, at a much higher CPU cost (docs/engine.md).
 */
export const QUALITY_TIERS = ['fast', 'balanced', 'best', 'sharp'] as const;
export type QualityTier = (typeof QUALITY_TIERS)[number];

/**
 * The content hint (additive request field `content`): what the image shows. `illustration` (drawings,
 * line art, screenshots, text) runs an illustration network at the tiers where one measured better
 * (docs/engine.md, "The content hint"); everywhere else it runs what `photo` runs. Jobs stored without it are photo.
 */
export const CONTENT_HINTS = ['photo', 'illustration'] as const;
export type ContentHint = (typeof CONTENT_HINTS)[number];
export const DEFAULT_CONTENT: ContentHint = 'photo';

/** Key scopes: the spec's two plus ours for self-service (docs/design.md §6). */
export const SCOPES = ['jobs:read', 'jobs:write', 'keys:read', 'keys:write', 'webhooks:read', 'webhooks:write'] as const;
export type Scope = (typeof SCOPES)[number];

export const WEBHOOK_EVENT_TYPES = ['job.succeeded', 'job.failed', 'job.cancelled'] as const;
export type WebhookEventType = (typeof WEBHOOK_EVENT_TYPES)[number];

export const MAX_UPLOAD_BYTES = 10 * 1024 * 1024;
export const SIGNED_URL_TTL_SECONDS = 300;
/**
 * Job lists' thumbnail links are signed as of the start of a window this long and stay valid for two windows: the
 * same link for every list answered within one window (a browser caches the image), valid for at least one more.
 */
export const THUMBNAIL_LINK_WINDOW_SECONDS = 300;
/** Longest side of a job's thumbnail in pixels (job lists): sharp on a 2x screen up to 80 CSS px (the dashboard shows 56). */
export const THUMBNAIL_SIDE = 160;

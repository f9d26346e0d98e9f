import type { ContentHint, JobStatus, OutputFormat, QualityTier, RequestedSize, Target } from './job';

/** Public JSON shapes (spec 2 and docs/design.md §6). snake_case on the wire. */
export interface JobView {
  id: string;
  object: 'job';
  status: JobStatus;
  target: Target;
  filename: string | null;
  credits: number;
  error: { code: string; message: string } | null;
  /** width and height: additive, the oriented pixel size. */
  source: { bytes: number; content_type: string; width: number; height: number } | null;
  result: { bytes: number; content_type: string; url: string; width: number; height: number } | null;
  created_at: string;
  finished_at: string | null;
  duration_ms: number | null;
  /** Additive: when the latest processing attempt started; null before any. */
  started_at: string | null;
  /**
   * Additive: the share of the image's tiles through the network, 0 to 1: 0 while queued or
   * pending, rising while processing, 1 once succeeded; null for a failed or cancelled job.
   */
  progress: number | null;
  /** Additive fields (spec 9, rule 2). */
  format: OutputFormat;
  quality: QualityTier;
  requested_target: Target;
  /** Additive: the content hint the job runs with; photo for jobs stored before it existed. */
  content: ContentHint;
  /** Additive: the pixel size the request asked for instead of a target; null when it gave a target. */
  size: RequestedSize | null;
  /**
   * Additive: when the job's source and result are (or were) deleted: once final, finished_at plus the service's
   * retention, or when an operator deleted them; null while unfinished or when files are kept.
   */
  files_expire_at: string | null;
}
export type JobCreateView = Pick<JobView, 'id' | 'object' | 'status' | 'target' | 'filename' | 'credits' | 'source' | 'created_at'>;
/** The list item: enough to tell jobs apart (which file, what output, why it failed) without a GET per job. */
export type JobListItemView = Pick<
  JobView,
  'id' | 'object' | 'status' | 'target' | 'credits' | 'created_at' | 'filename' | 'format' | 'quality' | 'error'
> & {
  /** Additive: a small WebP of the source (a signed link, as the result's), or null (none made, or files deleted). */
  thumbnail: ThumbnailView | null;
};
export interface ThumbnailView {
  url: string;
  width: number;
  height: number;
}
export type JobCancelView = Pick<JobView, 'id' | 'object' | 'status' | 'target' | 'credits' | 'created_at' | 'finished_at'>;

export interface ListView<T> {
  object: 'list';
  data: T[];
  has_more: boolean;
  next_cursor: string | null;
}

export interface ResultLinkView {
  url: string;
  expires_in: number;
  content_type: string;
  bytes: number;
}

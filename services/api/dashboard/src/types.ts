/**
 * The shapes this page reads from the API (docs/api.md). Only the fields it uses; the API may add more
 * (docs/spec/upscaling-api-v1.md §9), and the fields marked "additive" may be absent (answers of an older service).
 */
import type { JobStatus } from '../../../../libs/contracts/src/job';

export interface List<T> {
  object: 'list';
  data: T[];
  has_more: boolean;
  next_cursor: string | null;
}

export interface Account {
  id: string;
  name: string;
  balance: number;
  reserved: number;
  charged: number;
}

export interface ImageInfo {
  bytes: number;
  content_type: string;
  /** additive: pixel size */
  width?: number;
  height?: number;
}

export interface Job {
  id: string;
  object: 'job';
  status: JobStatus;
  target: string;
  credits: number;
  created_at: string;
  filename?: string | null;
  error?: { code: string; message: string } | null;
  source?: ImageInfo | null;
  result?: (ImageInfo & { url: string }) | null;
  finished_at?: string | null;
  duration_ms?: number | null;
  format?: string;
  quality?: string;
  requested_target?: string;
  /** additive: when the latest attempt started, and its share of tiles done (0..1) */
  started_at?: string | null;
  progress?: number | null;
  /** additive: the content hint, photo or illustration */
  content?: string;
  /** additive: the pixel size asked for instead of a target (docs/api.md, "Output by pixel size") */
  size?: { width: number | null; height: number | null; fit: string } | null;
  /** additive: when the job's source and result are (or were) deleted (docs/operations.md, "Retention") */
  files_expire_at?: string | null;
  /** additive, list items only: a signed link to a small WebP of the source (docs/api.md, "List jobs") */
  thumbnail?: { url: string; width: number; height: number } | null;
}

export interface ResultLink {
  url: string;
  expires_in: number;
  content_type: string;
  bytes: number;
}

export interface ApiKey {
  id: string;
  name: string | null;
  prefix: string;
  scopes: string[];
  rate_limit_per_minute: number | null;
  created_at: string;
  revoked_at: string | null;
}

export interface WebhookEndpoint {
  id: string;
  url: string;
  events: string[];
  description: string | null;
  status: 'enabled' | 'disabled';
  created_at: string;
}

export interface DeliveryAttempt {
  id: string;
  delivery_id: string;
  event_type: string;
  job_id: string | null;
  attempt: number;
  status_code: number | null;
  error: string | null;
  outcome: string;
  attempted_at: string;
  next_attempt_at: string | null;
  /** additive: the delivery this one re-sends */
  redelivery_of?: string | null;
}

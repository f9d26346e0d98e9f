/**
 * The one NOTIFY channel of the work queue (sent inside the transaction of the job event, so it
 * arrives once the event is committed): `ready` when a job may be claimable (queued, requeued, a
 * slot freed under a per-account limit), `stop <job id>` when a job was cancelled or failed while a
 * processor may be running it.
 */
export const WORK_CHANNEL = 'upscale_work';
export const READY = 'ready';
export const stopMessage = (jobId: string) => `stop ${jobId}`;
export function stoppedJobOf(payload: string): string | null {
  return payload.startsWith('stop ') ? payload.slice(5) : null;
}

/**
 * Progress of running jobs: `<job id> <fraction>` (0..1), sent by the processor holding the lease when it records
 * a new value (work-queue.repository.ts `reportProgress`); the api keeps the latest per job (job-progress.ts).
 */
export const PROGRESS_CHANNEL = 'upscale_progress';
export const progressMessage = (jobId: string, fraction: number) => `${jobId} ${fraction}`;
export function parseProgressMessage(payload: string): { jobId: string; fraction: number } | null {
  const [jobId, value, extra] = payload.split(' ');
  const fraction = Number(value);
  if (!jobId || extra !== undefined || value === '' || !Number.isFinite(fraction) || fraction < 0 || fraction > 1) return null;
  return { jobId, fraction };
}

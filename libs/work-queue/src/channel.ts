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

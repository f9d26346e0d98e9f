/**
 * The job being watched: its live progress, then (succeeded) the comparison and the download, or
 * (failed) the job's error. Progress comes from GET /jobs/{id} with `Prefer: wait=N` and If-None-Match, the ETag
 * of the view shown (docs/api.md, "Waiting for a change"): a service that honours it holds the answer until the
 * view changes (processing shows as it starts, progress as it rises) or N seconds pass (304) and says so in
 * `Preference-Applied`, so the page asks again at once; one that ignores it answers at once, and the page backs
 * off between polls (1 s growing to 5 s: the spec's 1-2 s, then less often for a long job). `progress` (0..1)
 * fills the bar; without it the bar is indeterminate.
 */
import { ApiError, StaleAnswer, api, call, fetchSignedFile, type DownloadedFile } from './api';
import { Comparison } from './compare';
import { badge, byId, el, fillError, formatBytes, safeHttpUrl, showError, sleep, timeElement } from './dom';
import type { Job, ResultLink } from './types';

const FINAL = new Set(['succeeded', 'failed', 'cancelled']);
const STATUS_TONES: Record<string, string> = { succeeded: 'ok', failed: 'bad', processing: 'warn', cancelled: '' };
/** Long-poll length: the answer comes at the next change anyway. */
const WAIT_S = 30;
const BACKOFF_FIRST_MS = 1000;
const BACKOFF_MAX_MS = 5000;

interface Watch {
  id: string;
  abort: AbortController;
  /** the file the user uploaded: the comparison's "before" without downloading it again */
  localFile?: File;
  urls: string[];
  download?: { href: string; filename: string; local: boolean };
}

let watch: Watch | null = null;
let comparison: Comparison | null = null;
const changeListeners: Array<(job: Job) => void> = [];

/** Called when the watched job changes status (final included): the account's credits move with it. */
export function onJobStatusChange(listener: (job: Job) => void): void {
  changeListeners.push(listener);
}

export function initJobView(): void {
  comparison = new Comparison();
  byId('download-result').addEventListener('click', () => downloadResult());
  byId('job-cancel').addEventListener('click', () => void cancelWatched());
}

/** Stops watching and wipes the view (and its object URLs). */
export function closeJobView(): void {
  if (watch) {
    watch.abort.abort();
    for (const u of watch.urls) URL.revokeObjectURL(u);
  }
  watch = null;
  comparison?.clear();
  byId('job-view').hidden = true;
  byId('compare').hidden = true;
}

/** Shows a job and follows it until it is final. */
export function watchJob(job: Job, localFile?: File): void {
  closeJobView();
  const w: Watch = { id: job.id, abort: new AbortController(), localFile, urls: [] };
  watch = w;
  byId('job-view').hidden = false;
  render(job);
  void follow(w, job);
}

/** Opens a job by id (from the list): reads it, then watches it. */
export async function openJob(id: string): Promise<void> {
  const view = byId('job-view');
  try {
    watchJob(await api<Job>('GET', `/jobs/${encodeURIComponent(id)}`));
    view.scrollIntoView({ block: 'nearest' });
  } catch (err) {
    if (err instanceof StaleAnswer) return;
    closeJobView();
    view.hidden = false;
    showError(view, err);
  }
}

async function follow(w: Watch, first: Job): Promise<void> {
  let job = first;
  let backoff = BACKOFF_FIRST_MS;
  // the tag of the view shown; none yet for the create view, so the first poll answers at once
  let etag: string | null = null;
  let polled = false;
  try {
    while (!FINAL.has(job.status)) {
      // a service that gave no ETag is waited on for the job's end, as before (Prefer alone)
      const headers: Record<string, string> = etag
        ? { Prefer: `wait=${WAIT_S}`, 'If-None-Match': etag }
        : polled
          ? { Prefer: `wait=${WAIT_S}` }
          : {};
      polled = true;
      const answer = await call<Job>('GET', `/jobs/${encodeURIComponent(w.id)}`, { headers, signal: w.abort.signal });
      if (watch !== w) return;
      if (answer.status === 304) continue; // nothing changed for WAIT_S seconds: ask again
      etag = answer.headers.get('ETag');
      const before = job.status;
      job = answer.body;
      render(job);
      if (job.status !== before && !FINAL.has(job.status)) for (const l of changeListeners) l(job);
      if (FINAL.has(job.status)) break;
      if (!headers.Prefer || /(^|[\s,;])wait=/.test(answer.headers.get('Preference-Applied') ?? '')) {
        backoff = BACKOFF_FIRST_MS;
        await sleep(100, w.abort.signal); // the service waited: ask again, with a breath against a hot loop
      } else {
        await sleep(backoff, w.abort.signal);
        backoff = Math.min(BACKOFF_MAX_MS, Math.round(backoff * 1.5));
      }
    }
    for (const l of changeListeners) l(job);
    if (job.status === 'succeeded') await showResult(w, job);
  } catch (err) {
    if (w.abort.signal.aborted || watch !== w) return;
    showError(byId('job-view'), err);
  }
}

function render(job: Job): void {
  const view = byId('job-view');
  view.setAttribute('data-job-id', job.id);
  view.setAttribute('data-status', job.status);
  byId('job-id').textContent = job.id;
  byId('job-status').replaceChildren(badge(job.status, STATUS_TONES[job.status] ?? ''));
  const facts: Array<string | Node> = [job.filename ? `${job.filename} · ` : '', `${job.target}`];
  // a size request: what it asked for, beside the target that reaches it
  if (job.size)
    facts.push(
      ` for ${job.size.width ?? 'auto'}x${job.size.height ?? 'auto'}${job.size.width && job.size.height ? ` ${job.size.fit}` : ''}`,
    );
  if (job.format) facts.push(` · ${job.format}`);
  if (job.quality) facts.push(` · ${job.quality}`);
  // The content hint only where it is not the default, so a photo job reads as before.
  if (job.content && job.content !== 'photo') facts.push(` · ${job.content}`);
  facts.push(` · ${job.credits} credits`);
  byId('job-facts').replaceChildren(...facts);

  const bar = byId<HTMLProgressElement>('job-progress');
  const text = byId('job-progress-text');
  const known = typeof job.progress === 'number' && Number.isFinite(job.progress);
  if (job.status === 'succeeded') {
    bar.value = 1;
    text.textContent = job.duration_ms != null ? `Done in ${(job.duration_ms / 1000).toFixed(1)} s` : 'Done';
  } else if (FINAL.has(job.status)) {
    bar.value = 0;
    text.textContent = job.status === 'failed' ? 'Failed' : 'Cancelled';
  } else if (job.status === 'processing' && known) {
    const p = Math.min(1, Math.max(0, job.progress as number));
    bar.value = p;
    text.textContent = `Upscaling: ${Math.floor(p * 100)}%`;
  } else {
    bar.removeAttribute('value'); // indeterminate: the service reports no figure
    text.textContent = job.status === 'processing' ? 'Upscaling…' : job.status === 'pending' ? 'Waiting to be retried…' : 'Queued…';
  }
  bar.setAttribute('aria-valuetext', text.textContent ?? '');
  const started = byId('job-started');
  started.replaceChildren(...(job.started_at ? ['started ', timeElement(job.started_at)] : []));
  // retention (docs/operations.md): when the files go, once the job is final and the service does not keep them
  const expires = job.files_expire_at;
  if (expires) started.append(Date.parse(expires) <= Date.now() ? ' · files deleted ' : ' · files kept until ', timeElement(expires));
  byId<HTMLButtonElement>('job-cancel').hidden = FINAL.has(job.status);

  const failure = byId('job-failure');
  if (job.status === 'failed' && job.error) {
    fillError(failure, new ApiError(0, job.error.code, job.error.message));
    failure.hidden = false;
  } else {
    failure.hidden = true;
    failure.replaceChildren();
  }
  if (!FINAL.has(job.status)) showError(view, null);
}

async function cancelWatched(): Promise<void> {
  const w = watch;
  if (!w) return;
  const b = byId<HTMLButtonElement>('job-cancel');
  b.disabled = true;
  try {
    await api('DELETE', `/jobs/${encodeURIComponent(w.id)}`);
  } catch (err) {
    showError(byId('job-view'), err);
  } finally {
    b.disabled = false;
  }
}

/** A signed link of the job (result or source); fetched when this origin serves it. */
async function asset(w: Watch, which: 'result' | 'source'): Promise<{ file: DownloadedFile | null; link: ResultLink }> {
  const query = which === 'source' ? '?redirect=false&asset=source' : '?redirect=false';
  const link = await api<ResultLink>('GET', `/jobs/${encodeURIComponent(w.id)}/result${query}`);
  return { file: await fetchSignedFile(link.url, w.abort.signal), link };
}

function objectUrl(w: Watch, blob: Blob): string {
  const u = URL.createObjectURL(blob);
  w.urls.push(u);
  return u;
}

function extensionOf(contentType: string): string {
  const sub = contentType.split('/')[1] ?? 'img';
  return sub === 'jpeg' ? 'jpg' : sub;
}

async function showResult(w: Watch, job: Job): Promise<void> {
  const info = byId('compare-info');
  const result = await asset(w, 'result');
  const fallbackName = `${job.id}.${extensionOf(result.link.content_type)}`;
  if (!result.file) {
    // Stored at another origin (S3/MinIO): the CSP lets the page link to it, not read it.
    const href = safeHttpUrl(result.link.url);
    if (href) w.download = { href, filename: fallbackName, local: false };
    byId('compare').hidden = false;
    byId('compare-stage').hidden = true;
    byId('zoom-controls').hidden = true;
    info.textContent =
      'The result is stored on another origin: the page can link to it but not show it here. Download opens the signed link (valid 5 minutes).';
    return;
  }
  const afterUrl = objectUrl(w, result.file.blob);
  w.download = { href: afterUrl, filename: result.file.filename ?? fallbackName, local: true };
  const beforeBlob = w.localFile ?? (await asset(w, 'source')).file?.blob;
  if (watch !== w) return;
  byId('compare').hidden = false;
  byId('compare-stage').hidden = !beforeBlob;
  byId('zoom-controls').hidden = !beforeBlob;
  if (!beforeBlob) {
    info.textContent = 'The source is stored on another origin: only the download is offered.';
    return;
  }
  const beforeUrl = objectUrl(w, beforeBlob);
  const size = job.result?.width && job.result.height ? { width: job.result.width, height: job.result.height } : await pixelSize(afterUrl);
  await comparison!.show(beforeUrl, afterUrl, size.width, size.height);
  const source =
    job.source?.width && job.source.height
      ? `${job.source.width}×${job.source.height}`
      : await pixelSize(beforeUrl).then((s) => `${s.width}×${s.height}`);
  info.replaceChildren(
    el('span', { text: `${source} → ${size.width}×${size.height} px` }),
    ` · ${formatBytes(result.link.bytes)} ${result.link.content_type}`,
  );
}

async function pixelSize(url: string): Promise<{ width: number; height: number }> {
  const img = new Image();
  img.src = url;
  await img.decode();
  return { width: img.naturalWidth, height: img.naturalHeight };
}

/** Saves the result: the bytes already fetched (an object URL), or the signed link of another origin. */
function downloadResult(): void {
  const d = watch?.download;
  if (!d) return;
  const a = el('a', { download: d.filename, rel: 'noopener noreferrer' });
  a.href = d.href;
  if (!d.local) a.target = '_blank';
  document.body.append(a);
  a.click();
  a.remove();
}

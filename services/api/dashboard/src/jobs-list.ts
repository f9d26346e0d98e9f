/**
 * The jobs panel: GET /jobs (scope jobs:read), newest first, a page at a time (next_cursor as
 * starting_after, docs/api.md "List jobs"), filtered by status. Newer pages are the cursors already
 * walked (a stack), so going back shows exactly the page seen before.
 */
import { JOB_STATUSES } from '../../../../libs/contracts/src/job';
import { ApiError, api } from './api';
import { openJob } from './job-view';
import {
  badge,
  busy,
  button,
  byId,
  el,
  errorParagraph,
  formatBytes,
  formatCount,
  safeHttpUrl,
  showRows,
  showRowsFailed,
  timeCell,
} from './dom';
import type { Job, List, ResultLink } from './types';

export const JOBS_PAGE_SIZE = 10;
const STATUS_TONES: Record<string, string> = { succeeded: 'ok', failed: 'bad', processing: 'warn' };

/** starting_after of each page shown so far: [undefined] on the first page. */
let cursors: Array<string | undefined> = [undefined];
let nextCursor: string | null = null;
/** The latest load: an answer to an earlier one (a Refresh still in flight when the filter changed) is dropped. */
let latestLoad = 0;

export function initJobsList(): void {
  const filter = byId<HTMLSelectElement>('jobs-status');
  filter.replaceChildren(
    el('option', { value: '', text: 'All statuses' }),
    ...JOB_STATUSES.map((s) => el('option', { value: s, text: s })),
  );
  filter.addEventListener('change', () => void loadJobs(true));
  byId('jobs-older').addEventListener('click', (e) => {
    if (!nextCursor) return;
    cursors.push(nextCursor);
    void busy(e.currentTarget as HTMLButtonElement, () => loadJobs());
  });
  byId('jobs-newer').addEventListener('click', (e) => {
    if (cursors.length < 2) return;
    cursors.pop();
    void busy(e.currentTarget as HTMLButtonElement, () => loadJobs());
  });
}

function jobRow(j: Job): HTMLTableRowElement {
  const actions = el('td', { class: 'actions' }, [
    button('View', 'secondary small', () => void openJob(j.id), { 'aria-label': `View job ${j.id}` }),
  ]);
  if (j.status === 'succeeded') {
    actions.append(
      button('Get download link', 'secondary small', (b) => void getDownloadLink(j, actions, b), {
        'aria-label': `Get a download link for ${j.id}`,
      }),
    );
  }
  // what tells jobs apart (the list item's additive fields): the file, the output asked for, a failure's code
  const file = [j.filename ?? '—', j.format, j.quality, j.status === 'failed' ? j.error?.code : undefined].filter(Boolean).join(' · ');
  return el('tr', { 'data-job-id': j.id }, [
    thumbnailCell(j),
    el('td', {}, [el('code', { text: j.id })]),
    el('td', { class: 'file', text: file }),
    el('td', {}, [badge(j.status, STATUS_TONES[j.status] ?? '')]),
    el('td', { text: j.target }),
    el('td', { class: 'num', text: formatCount(j.credits) }),
    timeCell(j.created_at),
    actions,
  ]);
}

/**
 * The source's thumbnail (the list item's signed link, the same link for a few minutes, so the browser caches it);
 * an empty cell for jobs without one. Decorative: the File cell names the image.
 */
function thumbnailCell(j: Job): HTMLTableCellElement {
  const url = j.thumbnail ? safeHttpUrl(j.thumbnail.url) : null;
  if (!j.thumbnail || !url) return el('td', { class: 'thumb' });
  const img = el('img', { alt: '', loading: 'lazy', decoding: 'async', width: j.thumbnail.width, height: j.thumbnail.height });
  img.src = url;
  return el('td', { class: 'thumb' }, [img]);
}

/** Reads the current page (or, with reset, the first page of the chosen status). */
export async function loadJobs(reset = false): Promise<void> {
  if (reset) cursors = [undefined];
  const panel = byId('jobs-panel');
  const status = byId<HTMLSelectElement>('jobs-status').value;
  const params = new URLSearchParams({ limit: String(JOBS_PAGE_SIZE) });
  if (status) params.set('status', status);
  const after = cursors[cursors.length - 1];
  if (after) params.set('starting_after', after);
  const load = ++latestLoad;
  try {
    const list = await api<List<Job>>('GET', `/jobs?${params.toString()}`);
    if (load !== latestLoad) return;
    nextCursor = list.has_more ? list.next_cursor : null;
    showRows(panel, list.data.map(jobRow));
  } catch (err) {
    if (load !== latestLoad) return;
    nextCursor = null;
    showRowsFailed(panel, err, 'jobs:read');
  }
  byId<HTMLButtonElement>('jobs-older').hidden = !nextCursor;
  byId<HTMLButtonElement>('jobs-newer').hidden = cursors.length < 2;
  byId('jobs-page').textContent = `Page ${cursors.length}${status ? ` · ${status}` : ''}`;
}

export function clearJobsList(): void {
  cursors = [undefined];
  nextCursor = null;
  byId<HTMLSelectElement>('jobs-status').value = '';
}

/**
 * GET /jobs/{id}/result?redirect=false signs a fresh link (valid a few minutes): asked for only when
 * the owner wants it, then offered as a plain link (no key needed to follow it).
 */
async function getDownloadLink(j: Job, cell: HTMLElement, b: HTMLButtonElement): Promise<void> {
  await busy(b, async () => {
    try {
      const link = await api<ResultLink>('GET', `/jobs/${encodeURIComponent(j.id)}/result?redirect=false`);
      const url = safeHttpUrl(link.url);
      if (!url) throw new ApiError(0, 'invalid_link', 'The API returned a download link that is not http(s).');
      const a = el('a', { download: true, rel: 'noopener noreferrer', text: 'Download' });
      a.href = url;
      const minutes = Math.max(1, Math.round(Number(link.expires_in) / 60));
      const note = el('div', { class: 'hint', text: [formatBytes(link.bytes), `link valid ${minutes} min`].filter(Boolean).join(', ') });
      b.replaceWith(a, note);
      a.focus();
    } catch (err) {
      cell.querySelector('.error')?.remove();
      cell.append(errorParagraph(err));
    }
  });
}

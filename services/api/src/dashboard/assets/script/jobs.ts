/** Browser code: the latest jobs (GET /jobs?limit=10, scope jobs:read) and their download links. */
export const JOBS_JS = String.raw`
const JOBS_SHOWN = 10;
const STATUS_TONES = { succeeded: 'ok', failed: 'bad', processing: 'warn' };

function jobRow(j) {
  const result = el('td', {});
  if (j.status === 'succeeded') {
    result.append(button('Get download link', 'secondary small', function (b) {
      getDownloadLink(j, result, b);
    }, { 'aria-label': 'Get a download link for ' + j.id }));
  } else {
    result.textContent = '—';
  }
  return el('tr', { 'data-job-id': j.id }, [
    el('td', {}, [el('code', { text: j.id })]),
    el('td', {}, [badge(j.status, STATUS_TONES[j.status] || '')]),
    el('td', { text: j.target }),
    el('td', { class: 'num', text: formatCount(j.credits) }),
    timeCell(j.created_at),
    result,
  ]);
}

async function loadJobs() {
  const panel = $('jobs-panel');
  try {
    const list = await api('GET', '/jobs?limit=' + JOBS_SHOWN);
    renderRows(panel, list.data.map(jobRow));
    showError(panel, null);
  } catch (err) {
    renderRows(panel, null);
    showError(panel, err);
  }
}

/**
 * GET /jobs/{id}/result?redirect=false signs a fresh link (valid a few minutes): asked for only
 * when the owner wants it, then offered as a plain link (no key needed to follow it).
 */
async function getDownloadLink(j, cell, b) {
  await busy(b, async function () {
    try {
      const link = await api('GET', '/jobs/' + encodeURIComponent(j.id) + '/result?redirect=false');
      const url = safeHttpUrl(link.url);
      if (!url) throw new ApiError(0, 'invalid_link', 'The API returned a download link that is not http(s).');
      const a = el('a', { download: true, rel: 'noopener noreferrer', text: 'Download' });
      a.href = url;
      const minutes = Math.max(1, Math.round(Number(link.expires_in) / 60));
      const note = el('div', { class: 'hint', text: [formatBytes(link.bytes), 'link valid ' + minutes + ' min'].filter(Boolean).join(', ') });
      cell.replaceChildren(a, note);
      a.focus();
    } catch (err) {
      cell.replaceChildren(errorParagraph(err), b);
    }
  });
}
`;

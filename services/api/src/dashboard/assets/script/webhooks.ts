/**
 * Browser code: the webhook endpoints panel (GET/POST/DELETE /webhook_endpoints, scopes
 * webhooks:read / webhooks:write) and each endpoint's delivery log.
 */
export const WEBHOOKS_JS = String.raw`
/** Endpoints whose delivery log is open: kept open (and re-read) across a refresh of the list. */
const openDeliveryLogs = new Set();
const DELIVERY_LOG_LIMIT = 20;
const OUTCOME_TONES = { succeeded: 'ok', retrying: 'warn', abandoned: 'bad', endpoint_gone: 'bad' };

function webhookRow(w) {
  const enabled = w.status === 'enabled';
  const label = w.url;
  const logButton = button('Deliveries', 'secondary small', function (b) {
    toggleDeliveries(w, b);
  }, { 'aria-expanded': 'false', 'aria-label': 'Delivery log of ' + label });
  const actions = el('td', { class: 'actions' }, [logButton]);
  if (enabled) {
    actions.append(button('Delete', 'danger small', function (b) {
      deleteWebhook(w, b);
    }, { 'aria-label': 'Delete endpoint ' + label }));
  }
  return el('tr', { 'data-webhook-id': w.id, class: enabled ? '' : 'disabled' }, [
    el('td', { class: 'url', text: w.url }),
    el('td', {}, [el('span', { class: 'scopes' }, (w.events || []).map(function (e) { return badge(e); }))]),
    el('td', {}, [w.description ? w.description : el('span', { class: 'subtle', text: '—' })]),
    el('td', {}, [badge(w.status, enabled ? 'ok' : '')]),
    timeCell(w.created_at),
    actions,
  ]);
}

async function loadWebhooks() {
  const panel = $('webhooks-panel');
  try {
    const list = await api('GET', '/webhook_endpoints');
    renderRows(panel, list.data.map(webhookRow));
    showError(panel, null);
    // Logs that were open stay open, re-read; those of endpoints no longer listed go.
    const listed = new Set(list.data.map(function (w) { return w.id; }));
    for (const id of Array.from(openDeliveryLogs)) if (!listed.has(id)) closeDeliveries(id);
    await Promise.all(list.data.filter(function (w) { return openDeliveryLogs.has(w.id); }).map(function (w) {
      return showDeliveries(w, logButtonOf(w.id));
    }));
  } catch (err) {
    renderRows(panel, null);
    deliveryLogs().replaceChildren();
    showError(panel, err);
  }
}

async function createWebhook(event) {
  event.preventDefault();
  const form = event.currentTarget;
  const body = { url: form.elements.url.value.trim(), events: checkedValues(form, 'webhook-event') };
  const description = form.elements.description.value.trim();
  if (description) body.description = description;
  await busy(form.querySelector('button[type="submit"]'), async function () {
    try {
      const created = await api('POST', '/webhook_endpoints', body);
      showError(form, null);
      form.reset();
      reveal('new-secret', created.secret);
      await loadWebhooks();
    } catch (err) {
      showError(form, err);
    }
  });
}

async function deleteWebhook(w, b) {
  if (!window.confirm('Delete the endpoint ' + w.url + '? It gets no more deliveries and pending retries are dropped. This cannot be undone.')) return;
  await busy(b, async function () {
    try {
      await api('DELETE', '/webhook_endpoints/' + encodeURIComponent(w.id));
      await loadWebhooks();
    } catch (err) {
      showError($('webhooks-panel'), err);
    }
  });
}

function deliveryLogs() {
  return $('delivery-logs');
}

function findDeliveryLog(endpointId) {
  return deliveryLogs().querySelector('[data-deliveries-for="' + CSS.escape(endpointId) + '"]');
}

function logButtonOf(endpointId) {
  return $('webhooks-panel').querySelector('tr[data-webhook-id="' + CSS.escape(endpointId) + '"] button[aria-expanded]');
}

function toggleDeliveries(w, b) {
  if (findDeliveryLog(w.id)) closeDeliveries(w.id);
  else showDeliveries(w, b);
}

function closeDeliveries(endpointId) {
  const box = findDeliveryLog(endpointId);
  if (box) box.remove();
  openDeliveryLogs.delete(endpointId);
  const b = logButtonOf(endpointId);
  if (b) {
    b.setAttribute('aria-expanded', 'false');
    b.textContent = 'Deliveries';
  }
}

/** The log of one endpoint, below the list (a table of its own, so that it scrolls on its own). */
async function showDeliveries(w, b) {
  openDeliveryLogs.add(w.id);
  const boxId = 'deliveries-' + w.id;
  const body = el('div', {}, [el('p', { class: 'hint', text: 'Loading the delivery log…' })]);
  const box = el('section', { id: boxId, class: 'delivery-log', 'data-deliveries-for': w.id, 'aria-label': 'Delivery log of ' + w.url }, [
    el('div', { class: 'panel-head' }, [
      el('h3', {}, ['Delivery log ', el('span', { class: 'subtle url', text: w.url })]),
      button('Close', 'secondary small', function () {
        closeDeliveries(w.id);
      }, { 'aria-label': 'Close the delivery log of ' + w.url }),
    ]),
    body,
  ]);
  const old = findDeliveryLog(w.id);
  if (old) old.replaceWith(box);
  else deliveryLogs().append(box);
  b.setAttribute('aria-expanded', 'true');
  b.setAttribute('aria-controls', boxId);
  b.textContent = 'Hide deliveries';
  try {
    const list = await api('GET', '/webhook_endpoints/' + encodeURIComponent(w.id) + '/deliveries?limit=' + DELIVERY_LOG_LIMIT);
    body.replaceChildren(deliveriesView(list));
  } catch (err) {
    body.replaceChildren(errorParagraph(err));
  }
}

/** Every attempt, newest first (the API orders by delivery id, which is not time: docs/api.md). */
function deliveriesView(list) {
  const attempts = list.data.slice().sort(function (a, b) {
    return String(b.attempted_at).localeCompare(String(a.attempted_at));
  });
  if (attempts.length === 0) return el('p', { class: 'empty', text: 'No deliveries yet.' });
  const head = ['Attempted', 'Event', 'Job', 'Attempt', 'Answer', 'Outcome'].map(function (h) {
    return el('th', { scope: 'col', text: h });
  });
  const rows = attempts.map(function (a) {
    const answered = a.status_code !== null && a.status_code !== undefined;
    const answer = el('td', {}, [answered ? 'HTTP ' + a.status_code : 'no answer', a.error ? el('div', { class: 'hint', text: a.error }) : null]);
    const outcome = el('td', {}, [badge(a.outcome, OUTCOME_TONES[a.outcome] || '')]);
    if (a.next_attempt_at) outcome.append(el('div', { class: 'hint' }, ['next ', timeElement(a.next_attempt_at)]));
    return el('tr', { 'data-attempt-id': a.id }, [
      timeCell(a.attempted_at),
      el('td', {}, [el('code', { text: a.event_type })]),
      el('td', {}, [el('code', { text: a.job_id })]),
      el('td', { class: 'num', text: a.attempt }),
      answer,
      outcome,
    ]);
  });
  const table = el('table', {}, [
    el('caption', { class: 'visually-hidden', text: 'Delivery attempts' }),
    el('thead', {}, [el('tr', {}, head)]),
    el('tbody', {}, rows),
  ]);
  const more = list.has_more ? el('p', { class: 'hint', text: 'Showing the attempts of ' + DELIVERY_LOG_LIMIT + ' deliveries; older ones are not listed.' }) : null;
  return el('div', { class: 'table-wrap' }, [table, more]);
}
`;

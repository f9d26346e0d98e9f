/**
 * The webhook endpoints panel: GET/POST/DELETE /webhook_endpoints (scopes webhooks:read /
 * webhooks:write), each endpoint's delivery log, a test event per endpoint
 * (POST /webhook_endpoints/{id}/test) and a re-send per delivery
 * (POST /webhook_endpoints/{id}/deliveries/{delivery_id}/redeliver). Where the API answers an error
 * (404 route_not_found on a service without those routes, 403 without webhooks:write), the panel
 * shows the API's own code and message.
 */
import { api, call, isRecord } from './api';
import * as ui from './dom';
import type { DeliveryAttempt, List, WebhookEndpoint } from './types';

/** Endpoints whose delivery log is open: kept open (and re-read) across a refresh of the list. */
export const openDeliveryLogs = new Set<string>();
const DELIVERY_LOG_LIMIT = 20;
const OUTCOME_TONES: Record<string, string> = { succeeded: 'ok', retrying: 'warn', abandoned: 'bad', endpoint_gone: 'bad' };

const panel = () => ui.byId('webhooks-panel');
const deliveryLogs = () => ui.byId('delivery-logs');

/** A line saying what the last action did (aria-live: read out by screen readers). */
function notice(text: string | null): void {
  const p = ui.byId('webhooks-notice');
  p.textContent = text ?? '';
  p.hidden = !text;
}

function webhookRow(w: WebhookEndpoint): HTMLTableRowElement {
  const enabled = w.status === 'enabled';
  const logButton = ui.button('Deliveries', 'secondary small', (b) => toggleDeliveries(w, b), {
    'aria-expanded': 'false',
    'aria-label': `Delivery log of ${w.url}`,
  });
  const actions = ui.el('td', { class: 'actions' }, [logButton]);
  if (enabled) {
    actions.append(
      ui.button('Send test event', 'secondary small', (b) => void sendTestEvent(w, b), { 'aria-label': `Send a test event to ${w.url}` }),
      ui.button('Delete', 'danger small', (b) => void deleteWebhook(w, b), { 'aria-label': `Delete endpoint ${w.url}` }),
    );
  }
  return ui.el('tr', { 'data-webhook-id': w.id, class: enabled ? '' : 'disabled' }, [
    ui.el('td', { class: 'url', text: w.url }),
    ui.el('td', {}, [
      ui.el(
        'span',
        { class: 'scopes' },
        w.events.map((e) => ui.badge(e)),
      ),
    ]),
    ui.el('td', {}, [w.description ? w.description : ui.el('span', { class: 'subtle', text: '—' })]),
    ui.el('td', {}, [ui.badge(w.status, enabled ? 'ok' : '')]),
    ui.timeCell(w.created_at),
    actions,
  ]);
}

export async function loadWebhooks(): Promise<void> {
  try {
    const list = await api<List<WebhookEndpoint>>('GET', '/webhook_endpoints');
    ui.showRows(panel(), list.data.map(webhookRow));
    // Logs that were open stay open, re-read; those of endpoints no longer listed go.
    const listed = new Set(list.data.map((w) => w.id));
    for (const id of Array.from(openDeliveryLogs)) if (!listed.has(id)) closeDeliveries(id);
    await Promise.all(list.data.filter((w) => openDeliveryLogs.has(w.id)).map((w) => showDeliveries(w)));
  } catch (err) {
    deliveryLogs().replaceChildren();
    ui.showRowsFailed(panel(), err, 'webhooks:read');
  }
}

export function clearWebhooks(): void {
  openDeliveryLogs.clear();
  deliveryLogs().replaceChildren();
  notice(null);
}

export async function createWebhook(event: SubmitEvent): Promise<void> {
  event.preventDefault();
  const form = event.currentTarget as HTMLFormElement;
  const body: { url: string; events: string[]; description?: string } = {
    url: ui.byId<HTMLInputElement>('webhook-url').value.trim(),
    events: ui.checkedValues(form, 'webhook-event'),
  };
  const description = ui.byId<HTMLInputElement>('webhook-description').value.trim();
  if (description) body.description = description;
  await ui.submitCreateForm(
    form,
    async () => (await api<WebhookEndpoint & { secret: string }>('POST', '/webhook_endpoints', body)).secret,
    'new-secret',
    loadWebhooks,
  );
}

async function deleteWebhook(w: WebhookEndpoint, b: HTMLButtonElement): Promise<void> {
  if (!window.confirm(`Delete the endpoint ${w.url}? It gets no more deliveries and pending retries are dropped. This cannot be undone.`))
    return;
  await ui.busy(b, async () => {
    try {
      await api('DELETE', `/webhook_endpoints/${encodeURIComponent(w.id)}`);
      notice(null);
      await loadWebhooks();
    } catch (err) {
      ui.showError(panel(), err);
    }
  });
}

/** The new delivery's id from a 202 answer (a webhook_delivery: docs/api.md, Webhooks). */
function deliveryIdOf(body: unknown): string | null {
  return isRecord(body) && typeof body.id === 'string' ? body.id : null;
}

async function sendTestEvent(w: WebhookEndpoint, b: HTMLButtonElement): Promise<void> {
  await ui.busy(b, async () => {
    try {
      const r = await call<unknown>('POST', `/webhook_endpoints/${encodeURIComponent(w.id)}/test`, { json: {} });
      const id = deliveryIdOf(r.body);
      ui.showError(panel(), null);
      notice(`Test event queued for ${w.url}${id ? ` (delivery ${id})` : ''}.`);
      if (openDeliveryLogs.has(w.id)) await showDeliveries(w);
    } catch (err) {
      notice(null);
      ui.showError(panel(), err);
    }
  });
}

async function redeliver(w: WebhookEndpoint, deliveryId: string, b: HTMLButtonElement): Promise<void> {
  await ui.busy(b, async () => {
    try {
      const r = await call<unknown>(
        'POST',
        `/webhook_endpoints/${encodeURIComponent(w.id)}/deliveries/${encodeURIComponent(deliveryId)}/redeliver`,
        {
          json: {},
        },
      );
      const id = deliveryIdOf(r.body);
      ui.showError(panel(), null);
      notice(`Delivery ${deliveryId} re-sent${id ? ` as ${id}` : ''} to ${w.url}.`);
      await showDeliveries(w);
    } catch (err) {
      notice(null);
      ui.showError(panel(), err);
    }
  });
}

function findDeliveryLog(endpointId: string): HTMLElement | null {
  return deliveryLogs().querySelector<HTMLElement>(`[data-deliveries-for="${CSS.escape(endpointId)}"]`);
}

function logButtonOf(endpointId: string): HTMLButtonElement | null {
  return panel().querySelector<HTMLButtonElement>(`tr[data-webhook-id="${CSS.escape(endpointId)}"] button[aria-expanded]`);
}

function toggleDeliveries(w: WebhookEndpoint, _b: HTMLButtonElement): void {
  if (findDeliveryLog(w.id)) closeDeliveries(w.id);
  else void showDeliveries(w);
}

function closeDeliveries(endpointId: string): void {
  findDeliveryLog(endpointId)?.remove();
  openDeliveryLogs.delete(endpointId);
  const b = logButtonOf(endpointId);
  if (b) {
    b.setAttribute('aria-expanded', 'false');
    b.textContent = 'Deliveries';
  }
}

/** The log of one endpoint, below the list (a table of its own, so that it scrolls on its own). */
async function showDeliveries(w: WebhookEndpoint): Promise<void> {
  openDeliveryLogs.add(w.id);
  const boxId = `deliveries-${w.id}`;
  const body = ui.el('div', {}, [ui.el('p', { class: 'hint', text: 'Loading the delivery log…' })]);
  const box = ui.el(
    'section',
    { id: boxId, class: 'delivery-log', 'data-deliveries-for': w.id, 'aria-label': `Delivery log of ${w.url}` },
    [
      ui.el('div', { class: 'panel-head' }, [
        ui.el('h3', {}, ['Delivery log ', ui.el('span', { class: 'subtle url', text: w.url })]),
        ui.button('Close', 'secondary small', () => closeDeliveries(w.id), { 'aria-label': `Close the delivery log of ${w.url}` }),
      ]),
      body,
    ],
  );
  const old = findDeliveryLog(w.id);
  if (old) old.replaceWith(box);
  else deliveryLogs().append(box);
  const b = logButtonOf(w.id);
  if (b) {
    b.setAttribute('aria-expanded', 'true');
    b.setAttribute('aria-controls', boxId);
    b.textContent = 'Hide deliveries';
  }
  try {
    const list = await api<List<DeliveryAttempt>>(
      'GET',
      `/webhook_endpoints/${encodeURIComponent(w.id)}/deliveries?limit=${DELIVERY_LOG_LIMIT}`,
    );
    body.replaceChildren(deliveriesView(w, list));
  } catch (err) {
    body.replaceChildren(ui.errorParagraph(err));
  }
}

/**
 * Every attempt, newest first (the API orders by delivery id, which is not time: docs/api.md); the
 * newest attempt of each delivery carries its Re-send ui.button.
 */
function deliveriesView(w: WebhookEndpoint, list: List<DeliveryAttempt>): HTMLElement {
  const attempts = list.data.slice().sort((a, b) => String(b.attempted_at).localeCompare(String(a.attempted_at)));
  if (attempts.length === 0) return ui.el('p', { class: 'empty', text: 'No deliveries yet.' });
  const head = ['Attempted', 'Event', 'Job', 'Attempt', 'Answer', 'Outcome', ''].map((h) =>
    ui.el('th', { scope: 'col' }, [h ? h : ui.el('span', { class: 'visually-hidden', text: 'Actions' })]),
  );
  const withButton = new Set<string>();
  const rows = attempts.map((a) => {
    const answered = a.status_code !== null && a.status_code !== undefined;
    const answer = ui.el('td', {}, [
      answered ? `HTTP ${a.status_code}` : 'no answer',
      a.error ? ui.el('div', { class: 'hint', text: a.error }) : null,
    ]);
    const outcome = ui.el('td', {}, [ui.badge(a.outcome, OUTCOME_TONES[a.outcome] ?? '')]);
    if (a.next_attempt_at) outcome.append(ui.el('div', { class: 'hint' }, ['next ', ui.timeElement(a.next_attempt_at)]));
    const actions = ui.el('td', { class: 'actions' });
    if (w.status === 'enabled' && !withButton.has(a.delivery_id)) {
      withButton.add(a.delivery_id);
      actions.append(
        ui.button('Re-send', 'secondary small', (b) => void redeliver(w, a.delivery_id, b), {
          'aria-label': `Re-send delivery ${a.delivery_id}`,
        }),
      );
    }
    return ui.el('tr', { 'data-attempt-id': a.id, 'data-delivery-id': a.delivery_id }, [
      ui.timeCell(a.attempted_at),
      ui.el('td', {}, [
        ui.el('code', { text: a.event_type }),
        a.redelivery_of ? ui.el('div', { class: 'hint' }, ['re-send of ', ui.el('code', { text: a.redelivery_of })]) : null,
      ]),
      ui.el('td', {}, [a.job_id ? ui.el('code', { text: a.job_id }) : ui.el('span', { class: 'subtle', text: '—' })]),
      ui.el('td', { class: 'num', text: a.attempt }),
      answer,
      outcome,
      actions,
    ]);
  });
  const table = ui.el('table', {}, [
    ui.el('caption', { class: 'visually-hidden', text: 'Delivery attempts' }),
    ui.el('thead', {}, [ui.el('tr', {}, head)]),
    ui.el('tbody', {}, rows),
  ]);
  const more = list.has_more
    ? ui.el('p', { class: 'hint', text: `Showing the attempts of ${DELIVERY_LOG_LIMIT} deliveries; older ones are not listed.` })
    : null;
  return ui.el('div', { class: 'table-wrap' }, [table, more]);
}

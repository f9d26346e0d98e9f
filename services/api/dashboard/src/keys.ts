/** The API keys panel: GET/POST/DELETE /api_keys (scopes keys:read / keys:write). */
import { api, storedKey } from './api';
import * as ui from './dom';
import type { ApiKey, List } from './types';

let onOwnKeyRevoked: () => void = () => undefined;

export function whenOwnKeyRevoked(handler: () => void): void {
  onOwnKeyRevoked = handler;
}

/** The key this page uses is recognised by its prefix (its first 12 characters, docs/design.md §6). */
function isThisKey(k: ApiKey): boolean {
  return storedKey().slice(0, 12) === k.prefix;
}

function keyRow(k: ApiKey): HTMLTableRowElement {
  const revoked = Boolean(k.revoked_at);
  const label = k.name || k.prefix;
  const status = ui.el('td', {}, [revoked ? ui.badge('revoked', 'bad') : ui.badge('active', 'ok')]);
  if (k.revoked_at) status.append(ui.el('div', { class: 'hint' }, ['since ', ui.timeElement(k.revoked_at)]));
  const actions = ui.el('td', { class: 'actions' });
  if (!revoked) actions.append(ui.button('Revoke', 'danger small', (b) => void revokeKey(k, b), { 'aria-label': `Revoke key ${label}` }));
  return ui.el('tr', { 'data-key-id': k.id, class: revoked ? 'revoked' : '' }, [
    ui.el('td', { class: 'name' }, [k.name ? k.name : ui.el('span', { class: 'subtle', text: '(no name)' })]),
    ui.el('td', {}, [ui.el('code', { text: k.prefix }), isThisKey(k) ? ui.el('div', { class: 'hint', text: 'this dashboard' }) : null]),
    ui.el('td', {}, [
      ui.el(
        'span',
        { class: 'scopes' },
        k.scopes.map((s) => ui.badge(s)),
      ),
    ]),
    ui.el('td', { class: 'num', text: k.rate_limit_per_minute ? `${ui.formatCount(k.rate_limit_per_minute)} / min` : 'default' }),
    ui.timeCell(k.created_at),
    status,
    actions,
  ]);
}

export async function loadKeys(): Promise<void> {
  const panel = ui.byId('keys-panel');
  try {
    const list = await api<List<ApiKey>>('GET', '/api_keys');
    ui.showRows(panel, list.data.map(keyRow));
  } catch (err) {
    ui.showRowsFailed(panel, err, 'keys:read');
  }
}

export async function createKey(event: SubmitEvent): Promise<void> {
  event.preventDefault();
  const form = event.currentTarget as HTMLFormElement;
  const body: { scopes: string[]; name?: string; rate_limit_per_minute?: number } = { scopes: ui.checkedValues(form, 'key-scope') };
  const name = ui.byId<HTMLInputElement>('key-name').value.trim();
  const rate = ui.byId<HTMLInputElement>('key-rate').value.trim();
  if (name) body.name = name;
  if (rate) body.rate_limit_per_minute = Number(rate);
  await ui.submitCreateForm(form, async () => (await api<ApiKey & { key: string }>('POST', '/api_keys', body)).key, 'new-key', loadKeys);
}

async function revokeKey(k: ApiKey, b: HTMLButtonElement): Promise<void> {
  const own = isThisKey(k);
  const question =
    `Revoke the key ${k.name ? `"${k.name}" ` : ''}(${k.prefix})? Anything using it gets 401 from now on.` +
    (own ? ' This is the key this dashboard is using: you will be signed out.' : '');
  if (!window.confirm(question)) return;
  await ui.busy(b, async () => {
    try {
      await api('DELETE', `/api_keys/${encodeURIComponent(k.id)}`);
      if (own) return onOwnKeyRevoked();
      await loadKeys();
    } catch (err) {
      ui.showError(ui.byId('keys-panel'), err);
    }
  });
}

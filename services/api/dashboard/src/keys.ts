/** The API keys panel: GET/POST/DELETE /api_keys (scopes keys:read / keys:write). */
import { api, storedKey } from './api';
import {
  badge,
  busy,
  button,
  byId,
  checkedValues,
  el,
  formatCount,
  showError,
  showRows,
  showRowsFailed,
  submitCreateForm,
  timeCell,
  timeElement,
} from './dom';
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
  const status = el('td', {}, [revoked ? badge('revoked', 'bad') : badge('active', 'ok')]);
  if (k.revoked_at) status.append(el('div', { class: 'hint' }, ['since ', timeElement(k.revoked_at)]));
  const actions = el('td', { class: 'actions' });
  if (!revoked) actions.append(button('Revoke', 'danger small', (b) => void revokeKey(k, b), { 'aria-label': `Revoke key ${label}` }));
  return el('tr', { 'data-key-id': k.id, class: revoked ? 'revoked' : '' }, [
    el('td', { class: 'name' }, [k.name ? k.name : el('span', { class: 'subtle', text: '(no name)' })]),
    el('td', {}, [el('code', { text: k.prefix }), isThisKey(k) ? el('div', { class: 'hint', text: 'this dashboard' }) : null]),
    el('td', {}, [
      el(
        'span',
        { class: 'scopes' },
        k.scopes.map((s) => badge(s)),
      ),
    ]),
    el('td', { class: 'num', text: k.rate_limit_per_minute ? `${formatCount(k.rate_limit_per_minute)} / min` : 'default' }),
    timeCell(k.created_at),
    status,
    actions,
  ]);
}

export async function loadKeys(): Promise<void> {
  const panel = byId('keys-panel');
  try {
    const list = await api<List<ApiKey>>('GET', '/api_keys');
    showRows(panel, list.data.map(keyRow));
  } catch (err) {
    showRowsFailed(panel, err, 'keys:read');
  }
}

export async function createKey(event: SubmitEvent): Promise<void> {
  event.preventDefault();
  const form = event.currentTarget as HTMLFormElement;
  const body: { scopes: string[]; name?: string; rate_limit_per_minute?: number } = { scopes: checkedValues(form, 'key-scope') };
  const name = byId<HTMLInputElement>('key-name').value.trim();
  const rate = byId<HTMLInputElement>('key-rate').value.trim();
  if (name) body.name = name;
  if (rate) body.rate_limit_per_minute = Number(rate);
  await submitCreateForm(form, async () => (await api<ApiKey & { key: string }>('POST', '/api_keys', body)).key, 'new-key', loadKeys);
}

async function revokeKey(k: ApiKey, b: HTMLButtonElement): Promise<void> {
  const own = isThisKey(k);
  const question =
    `Revoke the key ${k.name ? `"${k.name}" ` : ''}(${k.prefix})? Anything using it gets 401 from now on.` +
    (own ? ' This is the key this dashboard is using: you will be signed out.' : '');
  if (!window.confirm(question)) return;
  await busy(b, async () => {
    try {
      await api('DELETE', `/api_keys/${encodeURIComponent(k.id)}`);
      if (own) return onOwnKeyRevoked();
      await loadKeys();
    } catch (err) {
      showError(byId('keys-panel'), err);
    }
  });
}

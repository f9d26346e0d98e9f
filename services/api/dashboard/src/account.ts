/** The account panel: GET /account (any valid key; docs/design.md §6). `charged` is the credits used. */
import { api } from './api';
import { byId, formatCount, showError } from './dom';
import type { Account } from './types';

export function renderAccount(a: Account): void {
  byId('account-name').textContent = a.name;
  byId('account-id').textContent = a.id;
  byId('account-balance').textContent = formatCount(a.balance);
  byId('account-reserved').textContent = formatCount(a.reserved);
  byId('account-charged').textContent = formatCount(a.charged);
}

export function clearAccount(): void {
  for (const id of ['account-name', 'account-id']) byId(id).textContent = '';
  for (const id of ['account-balance', 'account-reserved', 'account-charged']) byId(id).textContent = '–';
}

export async function loadAccount(): Promise<void> {
  const panel = byId('account-panel');
  try {
    renderAccount(await api<Account>('GET', '/account'));
    showError(panel, null);
  } catch (err) {
    showError(panel, err);
  }
}

/**
 * The dashboard's entry point (bundled into /dashboard/app.js by build.mjs): opening the dashboard
 * with a key, signing out, and the page's shared buttons. Each panel loads on its own, so a key
 * lacking one scope still sees every other panel.
 */
import { SCOPES, WEBHOOK_EVENT_TYPES } from '../../../../libs/contracts/src/job';
import { api, forgetKey, storeKey, storedKey } from './api';
import { clearAccount, loadAccount, renderAccount } from './account';
import { busy, byId, copyValue, dismiss, fillCheckboxes, showError } from './dom';
import { closeJobView, initJobView, onJobStatusChange } from './job-view';
import { clearJobsList, initJobsList, loadJobs } from './jobs-list';
import { createKey, loadKeys, whenOwnKeyRevoked } from './keys';
import { clearSubmitForm, initSubmitForm, whenSubmitted } from './submit';
import type { Account } from './types';
import { clearWebhooks, createWebhook, loadWebhooks } from './webhooks';

/** How long after a submit the account is read again. */
const ACCOUNT_RECHECK_MS = 1500;

const LOADERS: Record<string, () => Promise<void>> = {
  account: loadAccount,
  keys: loadKeys,
  webhooks: loadWebhooks,
  jobs: () => loadJobs(),
};

/** Reads the account now, and once more a moment later (the ledger's read side may land after the answer). */
function refreshAccount(): void {
  void loadAccount();
  setTimeout(() => {
    if (storedKey()) void loadAccount();
  }, ACCOUNT_RECHECK_MS);
}

function showDashboard(on: boolean): void {
  byId('connect-panel').hidden = on;
  byId('dashboard').hidden = !on;
  byId('forget-key').hidden = !on;
}

function loadPanels(): Promise<unknown> {
  return Promise.all([loadKeys(), loadWebhooks(), loadJobs(true)]);
}

async function connect(event: SubmitEvent): Promise<void> {
  event.preventDefault();
  const form = event.currentTarget as HTMLFormElement;
  const input = byId<HTMLInputElement>('api-key');
  const key = input.value.trim();
  await busy(form.querySelector<HTMLButtonElement>('button[type="submit"]')!, async () => {
    try {
      const account = await api<Account>('GET', '/account', undefined, key);
      storeKey(key);
      input.value = '';
      showError(form, null);
      renderAccount(account);
      showError(byId('account-panel'), null);
      showDashboard(true);
      await loadPanels();
    } catch (err) {
      showError(form, err);
      input.focus();
    }
  });
}

/** Forgets the key and wipes everything the API returned from the page. */
function signOut(reason: unknown): void {
  forgetKey();
  closeJobView();
  clearWebhooks();
  clearJobsList();
  clearSubmitForm();
  dismiss('new-key');
  dismiss('new-secret');
  clearAccount();
  for (const panel of document.querySelectorAll<HTMLElement>('#dashboard .panel')) {
    for (const table of panel.querySelectorAll('table')) table.tBodies[0]?.replaceChildren();
    for (const p of panel.querySelectorAll<HTMLElement>('.error')) {
      p.hidden = true;
      p.replaceChildren();
    }
  }
  showDashboard(false);
  showError(byId('connect-form'), reason ?? null);
  byId('api-key').focus();
}

function onClick(event: MouseEvent): void {
  const target = event.target instanceof Element ? event.target.closest('button') : null;
  if (!target) return;
  const refresh = target.getAttribute('data-refresh');
  const loader = refresh ? LOADERS[refresh] : undefined;
  if (loader) void busy(target, loader);
  if (target.hasAttribute('data-copy')) void copyValue(target);
  const dismissed = target.getAttribute('data-dismiss');
  if (dismissed) dismiss(dismissed);
}

function start(): void {
  fillCheckboxes(byId('key-scopes'), 'key-scope', SCOPES, false);
  fillCheckboxes(byId('webhook-events'), 'webhook-event', WEBHOOK_EVENT_TYPES, true);
  initSubmitForm();
  initJobView();
  initJobsList();
  // A submitted job reserves credits, a finished one charges or refunds them: the account is read again when a job
  // is submitted and whenever the watched job changes status.
  whenSubmitted(() => {
    refreshAccount();
    void loadJobs(true);
  });
  onJobStatusChange(() => {
    refreshAccount();
    void loadJobs();
  });
  whenOwnKeyRevoked(() =>
    signOut({ code: 'unauthorized', status: 0, message: 'The key this dashboard was using has been revoked. Paste another key.' }),
  );
  byId<HTMLFormElement>('connect-form').addEventListener('submit', (e) => void connect(e));
  byId<HTMLFormElement>('key-form').addEventListener('submit', (e) => void createKey(e));
  byId<HTMLFormElement>('webhook-form').addEventListener('submit', (e) => void createWebhook(e));
  byId('forget-key').addEventListener('click', () => signOut(null));
  document.addEventListener('click', onClick);
  if (storedKey()) {
    showDashboard(true);
    void loadAccount();
    void loadPanels();
  } else {
    byId('api-key').focus();
  }
}

start();

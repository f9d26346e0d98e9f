/** Browser code: opening the dashboard with a key, signing out, and the page's shared buttons. */
export const MAIN_JS = String.raw`
const LOADERS = { account: loadAccount, keys: loadKeys, webhooks: loadWebhooks, jobs: loadJobs };

function showDashboard(on) {
  $('connect-panel').hidden = on;
  $('dashboard').hidden = !on;
  $('forget-key').hidden = !on;
}

/** Each panel loads on its own: a key lacking one scope still sees every other panel. */
function loadPanels() {
  return Promise.all([loadKeys(), loadWebhooks(), loadJobs()]);
}

async function connect(event) {
  event.preventDefault();
  const form = event.currentTarget;
  const input = $('api-key');
  const key = input.value.trim();
  await busy(form.querySelector('button[type="submit"]'), async function () {
    try {
      const account = await api('GET', '/account', undefined, key);
      sessionStorage.setItem(KEY_STORAGE, key);
      input.value = '';
      showError(form, null);
      renderAccount(account);
      showError($('account-panel'), null);
      showDashboard(true);
      await loadPanels();
    } catch (err) {
      showError(form, err);
      input.focus();
    }
  });
}

/** Forgets the key and wipes everything the API returned from the page. */
function signOut(reason) {
  sessionStorage.removeItem(KEY_STORAGE);
  openDeliveryLogs.clear();
  $('delivery-logs').replaceChildren();
  dismiss('new-key');
  dismiss('new-secret');
  for (const id of ['account-name', 'account-id']) $(id).textContent = '';
  for (const id of ['account-balance', 'account-reserved', 'account-charged']) $(id).textContent = '–';
  for (const panel of document.querySelectorAll('#dashboard .panel')) {
    const table = panel.querySelector('table');
    if (table) table.tBodies[0].replaceChildren();
    for (const p of panel.querySelectorAll('.error')) {
      p.hidden = true;
      p.replaceChildren();
    }
  }
  showDashboard(false);
  showError($('connect-form'), reason || null);
  $('api-key').focus();
}

function onClick(event) {
  const target = event.target instanceof Element ? event.target.closest('button') : null;
  if (!target) return;
  const refresh = target.getAttribute('data-refresh');
  if (refresh && LOADERS[refresh]) busy(target, LOADERS[refresh]);
  if (target.hasAttribute('data-copy')) copyValue(target);
  const dismissed = target.getAttribute('data-dismiss');
  if (dismissed) dismiss(dismissed);
}

function start() {
  $('connect-form').addEventListener('submit', connect);
  $('key-form').addEventListener('submit', createKey);
  $('webhook-form').addEventListener('submit', createWebhook);
  $('forget-key').addEventListener('click', function () {
    signOut(null);
  });
  document.addEventListener('click', onClick);
  if (storedKey()) {
    showDashboard(true);
    loadAccount();
    loadPanels();
  } else {
    $('api-key').focus();
  }
}

start();
`;

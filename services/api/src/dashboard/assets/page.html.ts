import { SCOPES, WEBHOOK_EVENT_TYPES } from '@upscaler/contracts';

/**
 * The dashboard's HTML: static markup, built once at start-up. The scope and event checkboxes come
 * from the contracts' lists so that the form offers exactly what the API accepts. No inline script
 * or style (the CSP forbids both); everything the API returns is added later by app.js with
 * textContent.
 */
export function dashboardPage(): string {
  const scopeBoxes = SCOPES.map((s) => checkbox('key-scope', s, s, false)).join('\n');
  const eventBoxes = WEBHOOK_EVENT_TYPES.map((e) => checkbox('webhook-event', e, e, true)).join('\n');
  return `<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<meta name="referrer" content="no-referrer">
<title>Account dashboard · Upscaler</title>
<link rel="icon" href="/dashboard/favicon.svg" type="image/svg+xml">
<link rel="stylesheet" href="/dashboard/app.css">
<script src="/dashboard/app.js" defer></script>
</head>
<body>
<header class="topbar">
  <h1>Upscaler <span class="subtle">account dashboard</span></h1>
  <button type="button" id="forget-key" class="secondary" hidden>Forget key</button>
</header>
<main id="main">

<section id="connect-panel" class="panel narrow" aria-labelledby="connect-title">
  <h2 id="connect-title">Open your account</h2>
  <form id="connect-form" method="post" autocomplete="off">
    <label for="api-key">API key</label>
    <input id="api-key" name="api-key" type="password" autocomplete="off" required spellcheck="false" autocapitalize="off"
      placeholder="usk_…" aria-describedby="api-key-help">
    <p id="api-key-help" class="hint">Kept in this browser tab only (sessionStorage) and sent only to this
      site's API. Closing the tab forgets it. What you can see and change depends on the key's scopes.</p>
    <p class="error" role="alert" hidden></p>
    <button type="submit">Open dashboard</button>
  </form>
</section>

<div id="dashboard" hidden>

<section id="account-panel" class="panel" aria-labelledby="account-title">
  <div class="panel-head">
    <h2 id="account-title">Account</h2>
    <button type="button" class="secondary" data-refresh="account">Refresh</button>
  </div>
  <p class="error" role="alert" hidden></p>
  <p class="meta"><span id="account-name"></span> <code id="account-id"></code></p>
  <dl class="stats">
    <div><dt>Balance</dt><dd id="account-balance">–</dd><dd class="hint">credits available for new jobs</dd></div>
    <div><dt>Reserved</dt><dd id="account-reserved">–</dd><dd class="hint">held by unfinished jobs</dd></div>
    <div><dt>Charged</dt><dd id="account-charged">–</dd><dd class="hint">spent on succeeded jobs</dd></div>
  </dl>
</section>

<section id="keys-panel" class="panel" aria-labelledby="keys-title">
  <div class="panel-head">
    <h2 id="keys-title">API keys</h2>
    <button type="button" class="secondary" data-refresh="keys">Refresh</button>
  </div>
  <p class="error" role="alert" hidden></p>
  <div id="new-key" class="reveal" hidden>
    <h3>New API key</h3>
    <p class="warning"><strong>Copy this key now: it will not be shown again.</strong> Only its prefix is kept.</p>
    <div class="copy-row">
      <label for="new-key-value" class="visually-hidden">New API key</label>
      <input id="new-key-value" type="text" readonly spellcheck="false">
      <button type="button" data-copy="new-key-value">Copy</button>
    </div>
    <p class="hint" data-copy-status aria-live="polite"></p>
    <button type="button" class="secondary" data-dismiss="new-key">I have stored it, hide it</button>
  </div>
  <div class="table-wrap">
    <table id="keys-table">
      <caption class="visually-hidden">API keys of this account</caption>
      <thead><tr><th scope="col">Name</th><th scope="col">Prefix</th><th scope="col">Scopes</th>
        <th scope="col">Rate limit</th><th scope="col">Created</th><th scope="col">Status</th><th scope="col"><span class="visually-hidden">Actions</span></th></tr></thead>
      <tbody></tbody>
    </table>
  </div>
  <p class="empty" hidden>No keys.</p>
  <form id="key-form" class="create-form" method="post" aria-labelledby="key-form-title">
    <h3 id="key-form-title">Create a key</h3>
    <div class="field">
      <label for="key-name">Name <span class="subtle">(optional)</span></label>
      <input id="key-name" name="name" type="text" maxlength="200" placeholder="worker">
    </div>
    <fieldset>
      <legend>Scopes</legend>
      <div class="checks">
${scopeBoxes}
      </div>
    </fieldset>
    <div class="field">
      <label for="key-rate">Rate limit per minute <span class="subtle">(optional, 1 to 10,000; empty for the default)</span></label>
      <input id="key-rate" name="rate_limit_per_minute" type="number" min="1" max="10000" step="1" inputmode="numeric">
    </div>
    <p class="error" role="alert" hidden></p>
    <button type="submit">Create key</button>
  </form>
</section>

<section id="webhooks-panel" class="panel" aria-labelledby="webhooks-title">
  <div class="panel-head">
    <h2 id="webhooks-title">Webhook endpoints</h2>
    <button type="button" class="secondary" data-refresh="webhooks">Refresh</button>
  </div>
  <p class="error" role="alert" hidden></p>
  <div id="new-secret" class="reveal" hidden>
    <h3>Signing secret of the new endpoint</h3>
    <p class="warning"><strong>Copy this secret now: it will not be shown again.</strong> Use it to verify the
      <code>webhook-signature</code> header of each delivery.</p>
    <div class="copy-row">
      <label for="new-secret-value" class="visually-hidden">Signing secret</label>
      <input id="new-secret-value" type="text" readonly spellcheck="false">
      <button type="button" data-copy="new-secret-value">Copy</button>
    </div>
    <p class="hint" data-copy-status aria-live="polite"></p>
    <button type="button" class="secondary" data-dismiss="new-secret">I have stored it, hide it</button>
  </div>
  <div class="table-wrap">
    <table id="webhooks-table">
      <caption class="visually-hidden">Webhook endpoints of this account</caption>
      <thead><tr><th scope="col">URL</th><th scope="col">Events</th><th scope="col">Description</th>
        <th scope="col">Status</th><th scope="col">Created</th><th scope="col"><span class="visually-hidden">Actions</span></th></tr></thead>
      <tbody></tbody>
    </table>
  </div>
  <p class="empty" hidden>No webhook endpoints.</p>
  <div id="delivery-logs"></div>
  <form id="webhook-form" class="create-form" method="post" aria-labelledby="webhook-form-title">
    <h3 id="webhook-form-title">Add an endpoint</h3>
    <div class="field">
      <label for="webhook-url">URL <span class="subtle">(https)</span></label>
      <input id="webhook-url" name="url" type="url" required maxlength="2048" placeholder="https://example.com/hooks/upscaler">
    </div>
    <fieldset>
      <legend>Events</legend>
      <div class="checks">
${eventBoxes}
      </div>
    </fieldset>
    <div class="field">
      <label for="webhook-description">Description <span class="subtle">(optional)</span></label>
      <input id="webhook-description" name="description" type="text" maxlength="500">
    </div>
    <p class="error" role="alert" hidden></p>
    <button type="submit">Add endpoint</button>
  </form>
</section>

<section id="jobs-panel" class="panel" aria-labelledby="jobs-title">
  <div class="panel-head">
    <h2 id="jobs-title">Latest jobs</h2>
    <button type="button" class="secondary" data-refresh="jobs">Refresh</button>
  </div>
  <p class="error" role="alert" hidden></p>
  <div class="table-wrap">
    <table id="jobs-table">
      <caption class="visually-hidden">The ten newest jobs</caption>
      <thead><tr><th scope="col">Job</th><th scope="col">Status</th><th scope="col">Target</th>
        <th scope="col">Credits</th><th scope="col">Created</th><th scope="col">Result</th></tr></thead>
      <tbody></tbody>
    </table>
  </div>
  <p class="empty" hidden>No jobs yet.</p>
</section>

</div>
</main>
</body>
</html>
`;
}

function checkbox(name: string, value: string, label: string, checked: boolean): string {
  const id = `${name}-${value.replace(/[^a-z0-9]+/gi, '-')}`;
  return `        <label class="check" for="${escapeHtml(id)}"><input type="checkbox" id="${escapeHtml(id)}" name="${escapeHtml(name)}" value="${escapeHtml(value)}"${checked ? ' checked' : ''}> <code>${escapeHtml(label)}</code></label>`;
}

function escapeHtml(s: string): string {
  return s.replace(/[&<>"']/g, (c) => `&#${c.charCodeAt(0)};`);
}

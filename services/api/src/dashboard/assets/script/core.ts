/**
 * Browser code (a part of /dashboard/app.js): the stored key, the one function that calls the API,
 * and DOM helpers. Values from the API only ever reach the page through textContent, Text nodes or
 * setAttribute (the CSP's Trusted Types rule makes any HTML sink throw). Plain ES2020 in a raw
 * string: no template literals inside, so nothing here is interpolated on the server.
 */
export const CORE_JS = String.raw`
const KEY_STORAGE = 'upscaler.dashboard.apiKey';
const API_BASE = '/api/v1';
const numberFormat = new Intl.NumberFormat('en-US');

function $(id) {
  return document.getElementById(id);
}

function storedKey() {
  return sessionStorage.getItem(KEY_STORAGE) || '';
}

class ApiError extends Error {
  constructor(status, code, message) {
    super(message);
    this.status = status;
    this.code = code;
  }
}

/**
 * Calls this origin's API (a path under /api/v1, so the key never leaves the origin) with the key as
 * a bearer token. Any answer but 2xx becomes an ApiError carrying the API's own {code, message}.
 */
async function api(method, path, body, key) {
  const token = key || storedKey();
  const headers = { Authorization: 'Bearer ' + token, Accept: 'application/json' };
  const init = { method: method, headers: headers, cache: 'no-store', credentials: 'omit', redirect: 'error' };
  if (body !== undefined) {
    headers['Content-Type'] = 'application/json';
    init.body = JSON.stringify(body);
  }
  let res;
  try {
    res = await fetch(API_BASE + path, init);
  } catch (e) {
    throw new ApiError(0, 'network_error', 'The API could not be reached. Check your connection and try again.');
  }
  const text = await res.text();
  let data = null;
  try {
    data = text ? JSON.parse(text) : null;
  } catch (e) {
    data = null;
  }
  if (!res.ok) {
    const err = data && typeof data === 'object' ? data.error : null;
    const code = err && typeof err.code === 'string' ? err.code : 'http_' + res.status;
    const message = err && typeof err.message === 'string' ? err.message : 'The API answered HTTP ' + res.status + '.';
    throw new ApiError(res.status, code, message);
  }
  return data;
}

/** el('td', {class: 'num', text: 3}, [children]): attributes via setAttribute, text via textContent. */
function el(tag, props, children) {
  const node = document.createElement(tag);
  for (const [name, value] of Object.entries(props || {})) {
    if (value === undefined || value === null || value === false) continue;
    if (name === 'text') node.textContent = String(value);
    else if (name === 'class') node.className = value;
    else node.setAttribute(name, value === true ? '' : String(value));
  }
  for (const child of children || []) {
    if (child !== undefined && child !== null) node.append(child);
  }
  return node;
}

function button(label, className, onClick, props) {
  const b = el('button', Object.assign({ type: 'button', class: className, text: label }, props || {}));
  b.addEventListener('click', function () {
    onClick(b);
  });
  return b;
}

function badge(text, tone) {
  return el('span', { class: 'badge' + (tone ? ' ' + tone : ''), text: text });
}

function formatCount(n) {
  return typeof n === 'number' && Number.isFinite(n) ? numberFormat.format(n) : '–';
}

function formatBytes(n) {
  if (typeof n !== 'number' || !Number.isFinite(n)) return '';
  if (n < 1024) return n + ' B';
  if (n < 1024 * 1024) return (n / 1024).toFixed(1) + ' KiB';
  return (n / (1024 * 1024)).toFixed(1) + ' MiB';
}

/** An ISO timestamp as "YYYY-MM-DD HH:MM:SS UTC": one unambiguous zone for every reader. */
function formatTime(iso) {
  const d = new Date(iso);
  return Number.isNaN(d.getTime()) ? String(iso) : d.toISOString().slice(0, 19).replace('T', ' ') + ' UTC';
}

function timeElement(iso) {
  return el('time', { datetime: iso, title: iso, text: formatTime(iso) });
}

/** A table cell with the timestamp in a <time> element; "—" when absent. */
function timeCell(iso) {
  const td = el('td', { class: 'num' });
  if (typeof iso !== 'string' || !iso) td.textContent = '—';
  else td.append(timeElement(iso));
  return td;
}

function describeError(err) {
  const code = err && err.code ? String(err.code) : 'error';
  const status = err && err.status ? ' (HTTP ' + err.status + ')' : '';
  const message = err && err.message ? String(err.message) : 'Something went wrong.';
  return { code: code, rest: status + ': ' + message };
}

/** Fills a paragraph with "<code>forbidden</code> (HTTP 403): message". */
function fillError(p, err) {
  const d = describeError(err);
  p.replaceChildren(el('code', { text: d.code }), d.rest);
}

/** Shows (or, with no error, hides) the error paragraph that is a direct child of box. */
function showError(box, err) {
  const p = box.querySelector(':scope > .error');
  if (!err) {
    p.hidden = true;
    p.replaceChildren();
    return;
  }
  fillError(p, err);
  p.hidden = false;
}

function errorParagraph(err) {
  const p = el('p', { class: 'error', role: 'alert' });
  fillError(p, err);
  return p;
}

/** Replaces a panel's table body; rows === null (the list could not be read) hides the table. */
function renderRows(panel, rows) {
  const table = panel.querySelector('table');
  const empty = panel.querySelector(':scope > .empty');
  table.tBodies[0].replaceChildren(...(rows || []));
  table.closest('.table-wrap').hidden = rows === null || rows.length === 0;
  empty.hidden = rows === null || rows.length > 0;
}

/** Disables the button while work runs, so a double click cannot send a request twice. */
async function busy(b, work) {
  b.disabled = true;
  try {
    return await work();
  } finally {
    b.disabled = false;
  }
}

function checkedValues(form, name) {
  return Array.from(form.querySelectorAll('input[name="' + name + '"]:checked')).map(function (i) {
    return i.value;
  });
}

/** Only http(s) links are ever put in an href (a javascript: URL from anywhere would run code). */
function safeHttpUrl(value) {
  try {
    const u = new URL(String(value), location.href);
    return u.protocol === 'https:' || u.protocol === 'http:' ? u.href : null;
  } catch (e) {
    return null;
  }
}

/** A secret shown once (a new key, a webhook secret): until dismissed, then wiped from the page. */
function reveal(id, value) {
  const box = $(id);
  $(id + '-value').value = value;
  box.querySelector('[data-copy-status]').textContent = '';
  box.hidden = false;
  box.querySelector('[data-copy]').focus();
}

function dismiss(id) {
  const box = $(id);
  $(id + '-value').value = '';
  box.querySelector('[data-copy-status]').textContent = '';
  box.hidden = true;
}

async function copyValue(b) {
  const input = $(b.getAttribute('data-copy'));
  const status = b.closest('.reveal').querySelector('[data-copy-status]');
  try {
    await navigator.clipboard.writeText(input.value);
    status.textContent = 'Copied to the clipboard.';
  } catch (e) {
    input.focus();
    input.select();
    status.textContent = 'Copying was not allowed: the text is selected, copy it with Ctrl+C (⌘C on a Mac).';
  }
}
`;

/**
 * DOM helpers. Values from the API reach the page only through textContent, Text nodes, form values
 * and setAttribute: the CSP's Trusted Types rule (dashboard.headers.ts) makes every HTML sink throw.
 */
import { StaleAnswer, type ApiError } from './api';

export function byId<T extends HTMLElement = HTMLElement>(id: string): T {
  const node = document.getElementById(id);
  if (!node) throw new Error(`#${id} is missing from the page`);
  return node as T;
}

export type Child = Node | string | null | undefined | false;
export type Props = Record<string, string | number | boolean | null | undefined>;

/** el('td', {class: 'num', text: 3}, [children]): attributes via setAttribute, text via textContent. */
export function el<K extends keyof HTMLElementTagNameMap>(tag: K, props: Props = {}, children: Child[] = []): HTMLElementTagNameMap[K] {
  const node = document.createElement(tag);
  for (const [name, value] of Object.entries(props)) {
    if (value === undefined || value === null || value === false) continue;
    if (name === 'text') node.textContent = String(value);
    else if (name === 'class') node.className = String(value);
    else node.setAttribute(name, value === true ? '' : String(value));
  }
  for (const child of children) if (child !== undefined && child !== null && child !== false) node.append(child);
  return node;
}

export function button(label: string, className: string, onClick: (b: HTMLButtonElement) => void, props: Props = {}): HTMLButtonElement {
  const b = el('button', { type: 'button', class: className, text: label, ...props });
  b.addEventListener('click', () => onClick(b));
  return b;
}

export function badge(text: string, tone = ''): HTMLSpanElement {
  return el('span', { class: tone ? `badge ${tone}` : 'badge', text });
}

const numberFormat = new Intl.NumberFormat('en-US');

export function formatCount(n: unknown): string {
  return typeof n === 'number' && Number.isFinite(n) ? numberFormat.format(n) : '–';
}

export function formatBytes(n: unknown): string {
  if (typeof n !== 'number' || !Number.isFinite(n)) return '';
  if (n < 1024) return `${n} B`;
  if (n < 1024 * 1024) return `${(n / 1024).toFixed(1)} KiB`;
  return `${(n / (1024 * 1024)).toFixed(1)} MiB`;
}

/** An ISO timestamp as "YYYY-MM-DD HH:MM:SS UTC": one unambiguous zone for every reader. */
export function formatTime(iso: string): string {
  const d = new Date(iso);
  return Number.isNaN(d.getTime()) ? String(iso) : `${d.toISOString().slice(0, 19).replace('T', ' ')} UTC`;
}

export function timeElement(iso: string): HTMLTimeElement {
  return el('time', { datetime: iso, title: iso, text: formatTime(iso) });
}

/** A table cell with the timestamp in a <time> element; "—" when absent. */
export function timeCell(iso: string | null | undefined): HTMLTableCellElement {
  const td = el('td', { class: 'num' });
  if (typeof iso !== 'string' || !iso) td.textContent = '—';
  else td.append(timeElement(iso));
  return td;
}

type ErrorLike = Partial<Pick<ApiError, 'code' | 'status' | 'message'>>;

/** Fills a paragraph with "<code>forbidden</code> (HTTP 403): message". */
export function fillError(p: HTMLElement, err: unknown): void {
  const e = (typeof err === 'object' && err !== null ? err : {}) as ErrorLike;
  const code = e.code ? String(e.code) : 'error';
  const status = e.status ? ` (HTTP ${e.status})` : '';
  const message = e.message ? String(e.message) : 'Something went wrong.';
  p.replaceChildren(el('code', { text: code }), `${status}: ${message}`);
}

/** Shows (or, with no error, hides) the error paragraph that is a direct child of box. */
export function showError(box: HTMLElement, err: unknown): void {
  const p = box.querySelector<HTMLElement>(':scope > .error');
  if (!p || err instanceof StaleAnswer) return;
  if (!err) {
    p.hidden = true;
    p.replaceChildren();
    return;
  }
  fillError(p, err);
  p.hidden = false;
}

/**
 * A panel's list could not be read: a key without the panel's scope (403 forbidden) is a fact about the key, not a
 * fault, and is said quietly in the panel's `.scope-note`; anything else is shown as an error.
 */
export function showLoadError(panel: HTMLElement, err: unknown, scope: string): void {
  const notice = panel.querySelector<HTMLElement>(':scope > .scope-note');
  const forbidden = (err as ErrorLike | null)?.status === 403 && (err as ErrorLike).code === 'forbidden';
  if (notice) {
    notice.hidden = !forbidden;
    notice.textContent = forbidden ? `This API key does not have the ${scope} scope, so there is nothing to show here.` : '';
  }
  showError(panel, forbidden ? null : err);
}

export function errorParagraph(err: unknown): HTMLParagraphElement {
  const p = el('p', { class: 'error', role: 'alert' });
  fillError(p, err);
  return p;
}

/** Replaces a panel's table body; rows === null (the list could not be read) hides the table. */
export function renderRows(panel: HTMLElement, rows: HTMLTableRowElement[] | null): void {
  const table = panel.querySelector('table');
  const empty = panel.querySelector<HTMLElement>(':scope > .empty');
  if (!table) return;
  table.tBodies[0]?.replaceChildren(...(rows ?? []));
  const wrap = table.closest<HTMLElement>('.table-wrap');
  if (wrap) wrap.hidden = rows === null || rows.length === 0;
  if (empty) empty.hidden = rows === null || rows.length > 0;
}

/** A panel's list was read: its rows, and no error. */
export function showRows(panel: HTMLElement, rows: HTMLTableRowElement[]): void {
  renderRows(panel, rows);
  showError(panel, null);
}

/** A panel's list could not be read: no table, and why (showLoadError: quietly when the key lacks `scope`). */
export function showRowsFailed(panel: HTMLElement, err: unknown, scope: string): void {
  if (err instanceof StaleAnswer) return;
  renderRows(panel, null);
  showLoadError(panel, err, scope);
}

/** Disables the button while work runs, so a double click cannot send a request twice. */
export async function busy<T>(b: HTMLButtonElement, work: () => Promise<T>): Promise<T> {
  b.disabled = true;
  try {
    return await work();
  } finally {
    b.disabled = false;
  }
}

export function checkedValues(form: HTMLFormElement, name: string): string[] {
  return Array.from(form.querySelectorAll<HTMLInputElement>(`input[name="${name}"]:checked`), (i) => i.value);
}

/** Checkboxes for a fixed list (scopes, event types), each with its own label. */
export function fillCheckboxes(container: HTMLElement, name: string, values: readonly string[], checked: boolean): void {
  container.replaceChildren(
    ...values.map((value) => {
      const id = `${name}-${value.replace(/[^a-z0-9]+/gi, '-')}`;
      const input = el('input', { type: 'checkbox', id, name, value, checked });
      return el('label', { class: 'check', for: id }, [input, ' ', el('code', { text: value })]);
    }),
  );
}

/** Only http(s) links are ever put in an href (a javascript: URL from anywhere would run code). */
export function safeHttpUrl(value: unknown): string | null {
  try {
    const u = new URL(String(value), location.href);
    return u.protocol === 'https:' || u.protocol === 'http:' ? u.href : null;
  } catch {
    return null;
  }
}

/** A secret shown once (a new key, a webhook secret): until dismissed, then wiped from the page. */
export function reveal(id: string, value: string): void {
  const box = byId(id);
  byId<HTMLInputElement>(`${id}-value`).value = value;
  const status = box.querySelector('[data-copy-status]');
  if (status) status.textContent = '';
  box.hidden = false;
  box.querySelector<HTMLElement>('[data-copy]')?.focus();
}

/**
 * A create form's submit (a key, a webhook endpoint): the button busy while `create` posts, then the one-time
 * secret it answers shown in `revealId` and the list reloaded; an error goes under the form, which keeps its values.
 */
export async function submitCreateForm(
  form: HTMLFormElement,
  create: () => Promise<string>,
  revealId: string,
  reload: () => Promise<void>,
): Promise<void> {
  await busy(form.querySelector<HTMLButtonElement>('button[type="submit"]')!, async () => {
    try {
      const secret = await create();
      showError(form, null);
      form.reset();
      reveal(revealId, secret);
      await reload();
    } catch (err) {
      showError(form, err);
    }
  });
}

export function dismiss(id: string): void {
  const box = byId(id);
  byId<HTMLInputElement>(`${id}-value`).value = '';
  const status = box.querySelector('[data-copy-status]');
  if (status) status.textContent = '';
  box.hidden = true;
}

export async function copyValue(b: HTMLElement): Promise<void> {
  const input = byId<HTMLInputElement>(b.getAttribute('data-copy') ?? '');
  const status = b.closest('.reveal')?.querySelector('[data-copy-status]');
  try {
    await navigator.clipboard.writeText(input.value);
    if (status) status.textContent = 'Copied to the clipboard.';
  } catch {
    input.focus();
    input.select();
    if (status) status.textContent = 'Copying was not allowed: the text is selected, copy it with Ctrl+C (⌘C on a Mac).';
  }
}

// The SDK's own abortable sleep (browser-safe: no Node import), so the dashboard's polling waits as the SDK's does.
export { sleep } from '../../../../clients/typescript/src/http';

/**
 * The dashboard's stylesheet, served at /dashboard/app.css (the CSP allows styles from this origin
 * only). Colours keep at least 4.5:1 contrast for text (WCAG AA) in both schemes; status is always
 * written out, never shown by colour alone.
 */
export const DASHBOARD_CSS = String.raw`
:root {
  --bg: #f4f6f8;
  --panel: #ffffff;
  --text: #1b2330;
  --muted: #4a5566;
  --border: #d5dbe3;
  --accent: #0b57d0;
  --accent-text: #ffffff;
  --danger: #b3261e;
  --ok-bg: #e3f4e8; --ok-text: #175c2c;
  --warn-bg: #fff4d6; --warn-text: #6b4a00;
  --bad-bg: #fde7e6; --bad-text: #8c1d18;
  --neutral-bg: #e8ecf1; --neutral-text: #3a4556;
  --focus: #ffbf47;
  color-scheme: light dark;
}
@media (prefers-color-scheme: dark) {
  :root {
    --bg: #11151b; --panel: #1a2029; --text: #e6eaf0; --muted: #a9b3c2; --border: #323b48;
    --accent: #8ab4f8; --accent-text: #0b1220; --danger: #f2b8b5;
    --ok-bg: #17331f; --ok-text: #a8e0b5; --warn-bg: #3a2f0f; --warn-text: #f5d98a;
    --bad-bg: #3d1715; --bad-text: #f7c1bd; --neutral-bg: #2a323d; --neutral-text: #cfd6e0;
  }
}
* { box-sizing: border-box; }
html { -webkit-text-size-adjust: 100%; }
body {
  margin: 0; background: var(--bg); color: var(--text);
  font: 15px/1.5 system-ui, -apple-system, "Segoe UI", Roboto, "Helvetica Neue", Arial, sans-serif;
}
code, .mono { font-family: ui-monospace, SFMono-Regular, Menlo, Consolas, "Liberation Mono", monospace; font-size: 0.92em; }
h1 { font-size: 1.25rem; margin: 0; }
h2 { font-size: 1.1rem; margin: 0; }
h3 { font-size: 1rem; margin: 0 0 0.5rem; }
.subtle { color: var(--muted); font-weight: normal; }
.hint { color: var(--muted); font-size: 0.87rem; margin: 0.25rem 0 0; }
.meta { color: var(--muted); margin: 0.25rem 0 0.75rem; }
.visually-hidden {
  position: absolute !important; width: 1px; height: 1px; padding: 0; margin: -1px;
  overflow: hidden; clip: rect(0 0 0 0); white-space: nowrap; border: 0;
}
[hidden] { display: none !important; }

.topbar {
  display: flex; align-items: center; justify-content: space-between; gap: 1rem;
  padding: 0.9rem 1.25rem; background: var(--panel); border-bottom: 1px solid var(--border);
}
main { max-width: 72rem; margin: 0 auto; padding: 1.25rem; }
#dashboard { display: grid; gap: 1.25rem; }
.panel {
  background: var(--panel); border: 1px solid var(--border); border-radius: 10px;
  padding: 1.1rem 1.25rem; min-width: 0;
}
.panel.narrow { max-width: 34rem; margin: 2rem auto; }
.panel-head { display: flex; align-items: center; justify-content: space-between; gap: 1rem; margin-bottom: 0.5rem; }

label { display: block; font-weight: 600; margin-bottom: 0.25rem; }
input[type="text"], input[type="password"], input[type="url"], input[type="number"] {
  width: 100%; padding: 0.5rem 0.6rem; font: inherit; color: var(--text); background: var(--panel);
  border: 1px solid var(--muted); border-radius: 6px;
}
input[readonly] { background: var(--bg); font-family: ui-monospace, SFMono-Regular, Menlo, Consolas, monospace; }
button {
  font: inherit; font-weight: 600; padding: 0.45rem 0.9rem; border-radius: 6px; cursor: pointer;
  border: 1px solid var(--accent); background: var(--accent); color: var(--accent-text);
}
button.secondary { background: transparent; color: var(--accent); }
button.danger { background: transparent; color: var(--danger); border-color: var(--danger); }
button.small { padding: 0.2rem 0.6rem; font-size: 0.87rem; }
button:disabled { opacity: 0.6; cursor: progress; }
:focus-visible { outline: 3px solid var(--focus); outline-offset: 2px; }
a { color: var(--accent); }

form > * + * { margin-top: 0.75rem; }
.create-form { border-top: 1px solid var(--border); margin-top: 1rem; padding-top: 1rem; }
fieldset { border: 1px solid var(--border); border-radius: 6px; padding: 0.5rem 0.75rem 0.75rem; margin-left: 0; margin-right: 0; }
legend { font-weight: 600; padding: 0 0.25rem; }
.checks { display: flex; flex-wrap: wrap; gap: 0.4rem 1.25rem; }
label.check { display: inline-flex; align-items: center; gap: 0.4rem; font-weight: normal; margin: 0; }
label.check input { width: 1.05rem; height: 1.05rem; margin: 0; }

.error {
  margin: 0.5rem 0; padding: 0.55rem 0.75rem; border-radius: 6px;
  background: var(--bad-bg); color: var(--bad-text); border: 1px solid currentColor;
}
.error code { font-weight: 700; }
.warning { margin: 0 0 0.5rem; color: var(--warn-text); }
.reveal {
  margin: 0.75rem 0; padding: 0.85rem 1rem; border-radius: 8px;
  background: var(--warn-bg); border: 1px solid var(--warn-text);
}
.reveal > * + * { margin-top: 0.5rem; }
.copy-row { display: flex; gap: 0.5rem; }
.copy-row input { flex: 1; min-width: 0; }

.stats { display: grid; grid-template-columns: repeat(auto-fit, minmax(11rem, 1fr)); gap: 0.75rem; margin: 0; }
.stats > div { border: 1px solid var(--border); border-radius: 8px; padding: 0.6rem 0.8rem; }
.stats dt { color: var(--muted); font-size: 0.87rem; font-weight: 600; text-transform: uppercase; letter-spacing: 0.03em; }
.stats dd { margin: 0; }
.stats dd:not(.hint) { font-size: 1.6rem; font-weight: 700; font-variant-numeric: tabular-nums; }

/* positioned, so that visually hidden headers stay inside the scroll box on narrow screens */
.table-wrap { overflow-x: auto; position: relative; }
table { border-collapse: collapse; width: 100%; font-size: 0.93rem; }
th, td { text-align: left; padding: 0.45rem 0.6rem; border-bottom: 1px solid var(--border); vertical-align: top; }
th { color: var(--muted); font-weight: 600; white-space: nowrap; }
td.num { font-variant-numeric: tabular-nums; }
td.actions { white-space: nowrap; text-align: right; }
td.actions > * + * { margin-left: 0.4rem; }
td.url { word-break: break-all; min-width: 12rem; }
tr.revoked td:not(.actions), tr.disabled td:not(.actions) { color: var(--muted); }
td.name { min-width: 7rem; }
time { white-space: nowrap; }
.delivery-log .hint time { white-space: normal; }
.delivery-log { margin-top: 1rem; padding: 0.75rem 1rem; border: 1px solid var(--border); border-radius: 8px; background: var(--bg); }
.delivery-log table { background: var(--panel); }
.delivery-log h3 { margin: 0; }
.delivery-log .url { word-break: break-all; }
.empty { color: var(--muted); margin: 0.5rem 0 0; }

.badge {
  display: inline-block; padding: 0.05rem 0.5rem; border-radius: 999px; font-size: 0.82rem; font-weight: 600;
  background: var(--neutral-bg); color: var(--neutral-text); white-space: nowrap;
}
.badge.ok { background: var(--ok-bg); color: var(--ok-text); }
.badge.warn { background: var(--warn-bg); color: var(--warn-text); }
.badge.bad { background: var(--bad-bg); color: var(--bad-text); }
.scopes { display: flex; flex-wrap: wrap; gap: 0.25rem; }

@media (max-width: 40rem) {
  main { padding: 0.75rem; }
  .panel { padding: 0.9rem; }
  .topbar { padding: 0.75rem; }
  .stats dd:not(.hint) { font-size: 1.3rem; }
}
`;

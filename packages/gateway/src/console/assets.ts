import { createHash } from 'node:crypto';

// The console's only static files: no framework, no build step, nothing from elsewhere.

/** The icon of every console and portal page: an "S" on the header's colour. */
export const FAVICON_SVG = `<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 32 32"><rect width="32" height="32" rx="7" fill="#14253d"/><path d="M22 10.6c-1.3-1.7-3.4-2.6-6-2.6-3.6 0-6 1.8-6 4.4 0 5.8 12 3.4 12 9.2 0 2.7-2.5 4.4-6.2 4.4-2.8 0-5-1-6.3-2.8" fill="none" stroke="#f0a500" stroke-width="3.2" stroke-linecap="round"/></svg>`;
/** Where it is served: its name carries a hash of its content, so it may be cached for a year. */
export const FAVICON_PATH = `/console/assets/favicon-${createHash('sha256').update(FAVICON_SVG).digest('hex').slice(0, 12)}.svg`;
export const IMMUTABLE = 'public, max-age=31536000, immutable';

export const CONSOLE_CSS = `
:root { --fg: #1d2430; --muted: #5b6675; --bg: #f5f7fa; --card: #fff; --line: #d9dee5; --accent: #0b5cad;
  --ok: #137333; --warn: #a15c00; --bad: #b3261e; font-family: system-ui, -apple-system, "Segoe UI", Roboto, sans-serif; }
* { box-sizing: border-box; }
body { margin: 0; color: var(--fg); background: var(--bg); font-size: 15px; line-height: 1.45; }
a { color: var(--accent); }
a:focus-visible, button:focus-visible, input:focus-visible, select:focus-visible, summary:focus-visible, textarea:focus-visible {
  outline: 3px solid #f0a500; outline-offset: 2px; }
.skip { position: absolute; left: -9999px; }
.skip:focus { left: 8px; top: 8px; background: #fff; padding: 6px 10px; z-index: 10; }
header.top { background: #14253d; color: #fff; display: flex; flex-wrap: wrap; align-items: center; gap: 4px 16px; padding: 8px 16px; }
header.top .brand { font-weight: 700; margin-right: 12px; }
header.top nav { display: flex; flex-wrap: wrap; gap: 2px; flex: 1; }
header.top nav a { color: #dbe6f5; text-decoration: none; padding: 6px 10px; border-radius: 4px; }
header.top nav a[aria-current="page"] { background: #2c4a73; color: #fff; }
header.top nav a:hover { background: #243d5f; }
header.top .who { font-size: 13px; color: #b9c7da; display: flex; gap: 8px; align-items: center; flex-wrap: wrap; }
header.top .who button { background: transparent; color: #fff; border: 1px solid #6c83a3; }
header.top .sign-out-note { font-size: 12px; color: #b9c7da; flex-basis: 100%; text-align: right; }
main { max-width: 1200px; margin: 0 auto; padding: 16px; }
h1 { font-size: 22px; margin: 8px 0 16px; overflow-wrap: anywhere; }
h2 { font-size: 18px; margin: 20px 0 8px; }
h3 { font-size: 15px; margin: 12px 0 6px; }
.card { background: var(--card); border: 1px solid var(--line); border-radius: 6px; padding: 12px 16px; margin-bottom: 16px; }
.grid { display: grid; grid-template-columns: repeat(auto-fit, minmax(240px, 1fr)); gap: 16px; }
.stat { font-size: 26px; font-weight: 700; }
.muted { color: var(--muted); font-size: 13px; }
.table-wrap { overflow-x: auto; }
table { border-collapse: collapse; width: 100%; background: var(--card); }
th, td { text-align: left; padding: 6px 8px; border-bottom: 1px solid var(--line); vertical-align: top; }
th { font-size: 13px; color: var(--muted); font-weight: 600; }
td.num, th.num { text-align: right; white-space: nowrap; }
dl.kv { display: grid; grid-template-columns: max-content 1fr; gap: 4px 16px; margin: 0; }
dl.kv dt { color: var(--muted); }
dl.kv dd { margin: 0; overflow-wrap: anywhere; }
form.inline { display: inline; }
form.filters { display: flex; flex-wrap: wrap; gap: 8px; align-items: flex-end; }
form.filters > label { max-width: 100%; min-width: 0; }
label { display: block; font-size: 13px; color: var(--muted); }
label input, label select { display: block; margin-top: 2px; }
fieldset.plain { border: 0; padding: 0; margin: 0; min-width: 0; }
fieldset.group { border: 1px solid var(--line); border-radius: 6px; padding: 8px 12px 4px; margin: 0 0 12px; min-width: 0; }
fieldset.group legend { font-weight: 600; color: var(--fg); padding: 0 4px; }
.hint { display: block; margin-top: 2px; font-size: 12px; }
[aria-invalid="true"] { border-color: var(--bad); outline: 1px solid var(--bad); }
label.check { display: flex; gap: 8px; align-items: baseline; color: var(--fg); font-size: 15px; }
label.check input { display: inline; margin: 0; }
input, select, textarea { font: inherit; padding: 6px 8px; border: 1px solid #aab4c1; border-radius: 4px; background: #fff; max-width: 100%; }
input[type="url"], input.wide { width: 100%; }
textarea.report { display: block; width: 100%; margin: 2px 0 8px; font-family: ui-monospace, monospace; font-size: 13px; }
table.ledger { margin-bottom: 16px; }
table.ledger tbody.entry { border-top: 2px solid var(--line); }
table.ledger code { font-size: 13px; overflow-wrap: anywhere; }
tfoot th, tfoot td { font-weight: 600; border-bottom: 0; }
.form-grid { display: grid; grid-template-columns: repeat(auto-fit, minmax(260px, 1fr)); gap: 10px 16px; margin-bottom: 12px; }
button, .button { font: inherit; padding: 6px 12px; border-radius: 4px; border: 1px solid var(--accent); background: var(--accent); color: #fff; cursor: pointer; text-decoration: none; display: inline-block; }
button.secondary, .button.secondary { background: #fff; color: var(--accent); }
button.danger { background: var(--bad); border-color: var(--bad); }
button[disabled] { opacity: .6; cursor: progress; }
.badge { display: inline-block; padding: 1px 8px; border-radius: 10px; font-size: 12px; background: #e7ebf0; white-space: nowrap; }
.badge.s-00, .badge.delivered, .badge.active, .badge.acknowledged { background: #dff3e4; color: var(--ok); }
.badge.s-01, .badge.s-03, .badge.pending, .badge.retrying, .badge.delivering { background: #fff1d6; color: var(--warn); }
.badge.s-05, .badge.s-06, .badge.dead, .badge.disabled, .badge.rejected, .badge.error { background: #fbe1df; color: var(--bad); }
.badge.paid, .badge.applied, .badge.ok { background: #dff3e4; color: var(--ok); }
.badge.open { background: #fff1d6; color: var(--warn); }
.badge.sending, .badge.paying { background: #fff1d6; color: var(--warn); }
.badge.failed { background: #fbe1df; color: var(--bad); }
.badge.awaiting_approval { background: #6b3d00; color: #fff; font-weight: 600; }
tr.awaiting td { background: #fff8e6; }
td.ids { overflow-wrap: anywhere; min-width: 12ch; }
/* Help text quoting a CSV header or an id: it breaks rather than push the page sideways. */
main code { overflow-wrap: anywhere; }
.flash.warn { background: #fff1d6; border: 1px solid #e0b96a; }
.exchange h3 { margin-top: 0; }
h4 { font-size: 14px; margin: 10px 0 4px; }
ol.plain { list-style: none; padding-left: 0; margin: 0; }
.badge.problem { background: #fbe1df; color: var(--bad); }
.flash { padding: 10px 14px; border-radius: 6px; margin-bottom: 16px; overflow-wrap: anywhere; }
.flash.ok { background: #dff3e4; border: 1px solid #9fd3ad; }
.flash.error { background: #fbe1df; border: 1px solid #e8a49f; }
.flash p { margin: 0 0 4px; }
.flash ul { margin: 4px 0 0; padding-left: 20px; }
.empty { padding: 16px; color: var(--muted); text-align: center; background: var(--card); border: 1px dashed var(--line); border-radius: 6px; }
pre { background: #f0f2f5; padding: 8px; border-radius: 4px; overflow-x: auto; white-space: pre-wrap; overflow-wrap: anywhere; font-size: 13px; margin: 4px 0; }
ol.timeline { list-style: none; padding-left: 0; border-left: 3px solid var(--line); margin-left: 6px; }
ol.timeline li { position: relative; padding: 2px 0 10px 16px; }
ol.timeline li::before { content: ""; position: absolute; left: -8px; top: 6px; width: 11px; height: 11px; border-radius: 50%; background: var(--accent); }
details { border: 1px solid var(--line); border-radius: 4px; padding: 6px 10px; margin: 6px 0; background: #fff; }
summary { cursor: pointer; }
.secret { display: flex; gap: 8px; align-items: center; flex-wrap: wrap; }
.secret input { font-family: ui-monospace, monospace; flex: 1; min-width: 220px; }
.qr img { width: 220px; height: 220px; image-rendering: pixelated; border: 1px solid var(--line); }
svg.chart { display: block; width: 100%; height: 180px; }
svg.chart .ok { fill: #2e8b57; }
svg.chart .failed { fill: #c0392b; }
.chart-max { margin: 0 0 4px; }
.chart-axis { display: flex; justify-content: space-between; font-size: 13px; color: var(--muted); margin-top: 2px; }
.actions { display: flex; flex-wrap: wrap; gap: 8px; margin: 8px 0; }
.login { max-width: 420px; margin: 40px auto; }
.tabs { display: flex; flex-wrap: wrap; gap: 4px; margin-bottom: 12px; }
.tabs a { padding: 4px 10px; border: 1px solid var(--line); border-radius: 14px; text-decoration: none; background: #fff; }
.tabs a[aria-current="page"] { background: var(--accent); color: #fff; border-color: var(--accent); }
.pager { display: flex; gap: 12px; margin: 12px 0; }
@media (max-width: 640px) {
  main { padding: 10px; }
  header.top { padding: 8px; }
  dl.kv { grid-template-columns: 1fr; }
  dl.kv dt { margin-top: 6px; }
  th, td { padding: 6px 4px; font-size: 14px; }
  .hide-narrow { display: none; }
  svg.chart { height: 140px; }
}
/* Below 600 px a data table (class stack) becomes one card per row: every cell on its own line,
   its column's name (data-label) on the left, the value on the right; nothing scrolls sideways. */
@media (max-width: 600px) {
  table.stack, table.stack tbody, table.stack tfoot, table.stack tr, table.stack td, table.stack tfoot th { display: block; width: 100%; }
  table.stack { background: transparent; }
  table.stack thead { display: none; }
  table.stack tr { background: var(--card); border: 1px solid var(--line); border-radius: 6px; margin-bottom: 8px; padding: 2px 10px; }
  table.stack tbody.entry { border: 0; margin-bottom: 8px; }
  table.stack tbody.entry tr { margin-bottom: 0; border-radius: 0; }
  table.stack tbody.entry tr:first-child { border-radius: 6px 6px 0 0; }
  table.stack tbody.entry tr:last-child { border-radius: 0 0 6px 6px; }
  table.stack tbody.entry tr + tr { border-top: 0; }
  table.stack td { display: flex; justify-content: space-between; align-items: baseline; gap: 12px; padding: 5px 0; border-bottom: 1px dashed var(--line); text-align: right; overflow-wrap: anywhere; min-width: 0; }
  table.stack td:last-child { border-bottom: 0; }
  table.stack td::before { content: attr(data-label); flex: none; max-width: 45%; text-align: left; color: var(--muted); font-size: 13px; }
  table.stack td[data-label=""]::before { content: none; }
  table.stack td[data-label=""] { justify-content: flex-end; }
  table.stack td:empty { display: none; }
  table.stack td.hide-narrow { display: none; }
  table.stack td.amount { font-weight: 600; }
  table.stack tfoot th { padding: 6px 0 2px; }
  table.stack tr.audit-details td { display: block; text-align: left; }
}
`;

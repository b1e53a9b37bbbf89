import { createHash } from 'node:crypto';

// The checkout page's only static files: no framework, no build step, nothing from elsewhere. The
// page paints without them waiting on a script (the script is deferred and only makes it live).

export const CHECKOUT_CSS = `
:root { --fg: #1b2330; --muted: #56606e; --bg: #eef1f5; --card: #fff; --line: #d5dbe3; --accent: #0a58a8;
  --ok: #11682f; --warn: #8a4d00; --bad: #a8231b; font-family: system-ui, -apple-system, "Segoe UI", Roboto, sans-serif; }
* { box-sizing: border-box; }
[hidden] { display: none !important; }
body { margin: 0; color: var(--fg); background: var(--bg); font-size: 16px; line-height: 1.45; }
a { color: var(--accent); }
a:focus-visible, button:focus-visible, input:focus-visible { outline: 3px solid #e09b00; outline-offset: 2px; }
header { display: flex; justify-content: space-between; align-items: center; gap: 8px; flex-wrap: wrap;
  max-width: 460px; margin: 0 auto; padding: 12px 16px 0; font-size: 14px; }
header .brand { font-weight: 700; }
header nav { display: flex; gap: 12px; }
header nav a[aria-current] { font-weight: 700; color: var(--fg); text-decoration: none; }
main { max-width: 460px; margin: 0 auto; padding: 8px 12px 16px; }
.card { background: var(--card); border: 1px solid var(--line); border-radius: 10px; padding: 14px 16px; margin: 0 0 12px; }
h1 { font-size: 20px; margin: 0 0 4px; overflow-wrap: anywhere; }
h2 { font-size: 17px; margin: 0 0 8px; }
.muted { color: var(--muted); font-size: 14px; margin: 0; }
.amount { font-size: 30px; font-weight: 700; margin: 6px 0; }
.status { font-weight: 700; padding: 6px 10px; border-radius: 6px; margin: 8px 0 4px; background: #fff3d9; color: var(--warn); }
.status.s-paid { background: #dcf2e2; color: var(--ok); }
.status.s-failed, .status.s-expired, .status.s-cancelled, .status.s-refunded { background: #fbe2df; color: var(--bad); }
.note { margin: 4px 0 0; }
.countdown { margin: 8px 0 0; font-size: 14px; }
.countdown strong { font-variant-numeric: tabular-nums; }
.qr { text-align: center; }
.qr svg { display: block; width: 100%; max-width: 280px; height: auto; margin: 0 auto 8px; }
.va-number { display: flex; align-items: center; justify-content: space-between; gap: 8px; flex-wrap: wrap;
  font-size: 22px; font-weight: 700; letter-spacing: .04em; font-variant-numeric: tabular-nums; margin: 4px 0; }
dl { display: grid; grid-template-columns: max-content 1fr; gap: 4px 12px; margin: 0; }
dt { color: var(--muted); font-size: 14px; }
dd { margin: 0; overflow-wrap: anywhere; }
details { border-top: 1px solid var(--line); padding: 8px 0; }
details:last-child { padding-bottom: 0; }
summary { cursor: pointer; font-weight: 600; }
ol { margin: 8px 0 0; padding-left: 22px; }
li { margin: 2px 0; }
button, .button { font: inherit; font-weight: 600; padding: 10px 16px; border-radius: 8px; border: 1px solid var(--accent);
  background: var(--accent); color: #fff; cursor: pointer; text-decoration: none; display: inline-block; }
button.secondary, .button.secondary { background: #fff; color: var(--accent); padding: 6px 12px; font-size: 15px; }
/* A wallet app's own link (a deep link) opens the app only where it is installed: on a phone. */
.on-phone { display: none; margin: 8px 0 0 8px; }
@media (pointer: coarse) { .on-phone { display: inline-block; } }
form label { display: block; font-size: 14px; color: var(--muted); margin: 8px 0; }
.answers { display: flex; gap: 12px; margin: 16px 0; }
.answers form { flex: 1; }
.answers button { width: 100%; padding: 12px 16px; font-size: 17px; }
#back p { margin-top: 0; }
input { font: inherit; padding: 8px; border: 1px solid #8d98a7; border-radius: 6px; width: 100%; margin-top: 2px; }
.copied { font-size: 14px; color: var(--ok); min-height: 1em; margin: 0; }
footer { text-align: center; color: var(--muted); font-size: 13px; padding: 0 12px 24px; }
`;

/**
 * Makes the page live: the status from the event stream (`/pay/<id>/events`), the countdown, the
 * copy button, and the way back to the shop once paid. Labels come from the page (its language).
 */
export const CHECKOUT_JS = `(() => {
  const root = document.getElementById('checkout');
  if (!root) return;
  const d = root.dataset;
  const $ = (id) => document.getElementById(id);
  const FINAL = ['paid', 'refunded', 'failed', 'expired', 'cancelled'];
  let state = d.state;
  let seq = Number(d.seq);
  const copy = $('copy');
  if (copy) {
    copy.hidden = false;
    copy.addEventListener('click', async () => {
      try { await navigator.clipboard.writeText(copy.dataset.copy); } catch {
        const r = document.createRange(); r.selectNodeContents($('va-number')); getSelection().removeAllRanges(); getSelection().addRange(r);
      }
      $('copied').textContent = d.lCopied;
    });
  }
  const left = $('countdown');
  if (left) {
    const end = Date.now() + Number(left.dataset.remainingMs);
    const two = (n) => String(n).padStart(2, '0');
    const tick = () => {
      const s = Math.max(0, Math.round((end - Date.now()) / 1000));
      const h = Math.floor(s / 3600);
      left.textContent = (h ? h + ':' : '') + two(Math.floor(s / 60) % 60) + ':' + two(s % 60);
      if (s > 0 && !FINAL.includes(state)) setTimeout(tick, 1000);
    };
    tick();
  }
  const when = (ms) => {
    const t = new Date(ms + 7 * 3600000);
    const two = (n) => String(n).padStart(2, '0');
    return t.getUTCDate() + ' ' + d.months.split(',')[t.getUTCMonth()] + ' ' + t.getUTCFullYear() + ', ' +
      two(t.getUTCHours()) + ':' + two(t.getUTCMinutes()) + ' WIB';
  };
  const label = (prefix, s) => d[prefix + s[0].toUpperCase() + s.slice(1)] || '';
  const show = (e) => {
    if (typeof e.seq === 'number' && e.seq < seq) return;
    if (typeof e.seq === 'number') seq = e.seq;
    state = e.state === 'waiting' && (e.status === '02' || e.status === '03') ? 'processing' : e.state;
    d.state = state;
    const status = $('status');
    status.textContent = label('l', state);
    status.className = 'status s-' + state;
    $('note').textContent = label('n', state);
    if (!FINAL.includes(state)) return;
    for (const el of document.querySelectorAll('.pay')) el.hidden = true;
    const back = $('back');
    if (state === 'paid') {
      if (e.paidAt) $('paid-at').textContent = when(e.paidAt);
      $('receipt').hidden = false;
      if (back) {
        $('redirecting').hidden = false;
        back.hidden = false;
        setTimeout(() => location.assign(back.querySelector('a').href), 3000);
      }
    } else if (back) back.hidden = false;
  };
  if (FINAL.includes(state) || !window.EventSource) return;
  const events = new EventSource(d.events);
  events.addEventListener('status', (m) => {
    show(JSON.parse(m.data));
    if (FINAL.includes(state)) events.close();
  });
  // Refused for good (a rate limit, say): fall back to reloading the page, as without script.
  events.addEventListener('error', () => {
    if (events.readyState === 2) setTimeout(() => location.reload(), 5000);
  });
})();
`;

const version = (text: string) => createHash('sha256').update(text).digest('hex').slice(0, 12);
export const CSS_VERSION = version(CHECKOUT_CSS);
export const JS_VERSION = version(CHECKOUT_JS);
export const CSS_PATH = `/pay/assets/checkout.css?v=${CSS_VERSION}`;
export const JS_PATH = `/pay/assets/checkout.js?v=${JS_VERSION}`;

import { assertNever } from '../methods/index.ts';
import { rupiah } from '../web/format.ts';
import { escapeHtml, Html, html } from '../web/html.ts';
import { CSS_PATH, JS_PATH } from './checkout-assets.ts';
import { type CheckoutView, isFinal } from './checkout-state.ts';
import { type CheckoutState, type CheckoutText, type Lang, TEXT } from './checkout-text.ts';

// The checkout page, rendered on the server: it is whole without script (the status, the QR or
// the VA and its steps, the absolute end time); the deferred script only makes it live.

const JAKARTA_OFFSET_MS = 7 * 3600_000;
const STATES: readonly CheckoutState[] = [
  'waiting',
  'processing',
  'paid',
  'refunded',
  'failed',
  'expired',
  'cancelled',
];

/** `Rp 15.000`, or `Rp 15.000,50` when there are cents. */
export const rupiahShort = (value: string): string => rupiah(value).replace(/,00$/, '');

/** `24 Nov 2026, 10:30 WIB`. */
export function jakartaWhen(ms: number, t: CheckoutText): string {
  const d = new Date(ms + JAKARTA_OFFSET_MS);
  const two = (n: number) => String(n).padStart(2, '0');
  return `${d.getUTCDate()} ${t.months[d.getUTCMonth()]} ${d.getUTCFullYear()}, ${two(d.getUTCHours())}:${two(d.getUTCMinutes())} WIB`;
}

/** `29:59`, or `23:59:59` past an hour. */
export function remaining(ms: number): string {
  const s = Math.max(0, Math.round(ms / 1000));
  const two = (n: number) => String(n).padStart(2, '0');
  const h = Math.floor(s / 3600);
  return `${h ? `${h}:` : ''}${two(Math.floor(s / 60) % 60)}:${two(s % 60)}`;
}

/** A VA number in groups of four, as it is read out. */
const grouped = (digits: string) => digits.replace(/(\d{4})(?=\d)/g, '$1 ');

export interface PageFrame {
  lang: Lang;
  title: string;
  /** Extra `<head>` markup (a refresh). */
  head?: Html | string;
  /** The page's own URL path, for the language links. */
  path: string;
}

/** The shell of every checkout page: the language toggle, the stylesheet and the deferred script. */
export function layout(frame: PageFrame, body: Html | string): string {
  const t = TEXT[frame.lang];
  const toggle = (lang: Lang, name: string) =>
    frame.lang === lang
      ? html`<a href="${frame.path}?lang=${lang}" lang="${lang}" hreflang="${lang}" aria-current="true">${name}</a>`
      : html`<a href="${frame.path}?lang=${lang}" lang="${lang}" hreflang="${lang}">${name}</a>`;
  return `<!doctype html>${html`<html lang="${frame.lang}"><head><meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<meta name="referrer" content="no-referrer">
<title>${frame.title}</title>
<link rel="stylesheet" href="${CSS_PATH}">
<script src="${JS_PATH}" defer></script>${frame.head ?? ''}
</head><body>
<header><span class="brand">${t.title}</span><nav aria-label="${t.language}">${toggle('id', 'Bahasa Indonesia')}${toggle('en', 'English')}</nav></header>
${body}
<footer>${t.poweredBy}</footer>
</body></html>`}`;
}

/** A page that only says something (not found, too many requests, an error). */
export function messagePage(lang: Lang, path: string, title: string, message: string): string {
  return layout(
    { lang, title, path },
    html`<main><section class="card" role="alert"><h1>${title}</h1><p>${message}</p></section></main>`,
  );
}

function statusBlock(v: CheckoutView, t: CheckoutText, nowMs: number): Html {
  const countdown =
    v.payBy !== null && !isFinal(v.state)
      ? html`<p class="countdown pay">${t.payBefore} <time datetime="${new Date(v.payBy).toISOString()}">${jakartaWhen(v.payBy, t)}</time> · ${t.timeLeft} <strong id="countdown" data-remaining-ms="${Math.max(0, v.payBy - nowMs)}">${remaining(v.payBy - nowMs)}</strong></p>`
      : '';
  const amount =
    v.amount !== null
      ? rupiahShort(v.amount)
      : v.paidAmount !== null && v.state === 'paid'
        ? rupiahShort(v.paidAmount)
        : t.anyAmount;
  return html`<section class="card" aria-labelledby="merchant"><p class="muted">${t.payTo}</p>
<h1 id="merchant">${v.merchantName}</h1>
<p class="amount"><span class="muted">${t.amount}</span><br>${amount}</p>
<p id="status" role="status" class="status s-${v.state}">${t.state[v.state]}</p>
<p id="note" class="note">${t.stateNote[v.state]}</p>${countdown}</section>`;
}

function qrisBlock(v: CheckoutView, t: CheckoutText, qrSvg: string | undefined): Html {
  if (isFinal(v.state)) return html``;
  if (!qrSvg) {
    return html`<section class="card qr pay"><h2>${t.preparing}</h2><p class="muted">${t.preparingNote}</p></section>`;
  }
  // The SVG is the QR library's own markup (no input of anyone's but the QR content it encodes).
  const svg = new Html(
    // A function, so that `$` in the merchant's name is never a replacement pattern.
    qrSvg.replace('<svg ', () => `<svg role="img" aria-label="${escapeHtml(t.qrLabel(v.merchantName))}" `),
  );
  return html`<section class="card qr pay" aria-label="QRIS">${svg}<p class="muted">${t.scan}</p></section>`;
}

function vaBlock(v: CheckoutView, t: CheckoutText): Html {
  const va = v.va;
  if (!va || isFinal(v.state)) return html``;
  const steps = t.stepsOf(va.bank, va.number, v.amount === null ? null : rupiahShort(v.amount));
  const channel = (key: keyof typeof steps, open: boolean) =>
    html`<details${open ? html` open` : ''}><summary>${t.steps[key]}</summary><ol>${steps[key].map((s) => html`<li>${s}</li>`)}</ol></details>`;
  return html`<section class="card pay" aria-labelledby="va-title"><h2 id="va-title">${t.vaNumber}</h2>
<dl><dt>${t.bank}</dt><dd id="bank">${va.bank}</dd><dt>${t.vaName}</dt><dd>${va.name}</dd></dl>
<p class="va-number"><span id="va-number">${grouped(va.number)}</span><button type="button" id="copy" class="secondary" data-copy="${va.number}" hidden>${t.copy}</button></p>
<p id="copied" class="copied" aria-live="polite"></p></section>
<section class="card pay" aria-labelledby="steps-title"><h2 id="steps-title">${t.howToPay}</h2>
${channel('atm', true)}${channel('mobile', false)}${channel('internet', false)}</section>`;
}

function walletBlock(v: CheckoutView, t: CheckoutText): Html {
  const wallet = v.wallet;
  if (!wallet || isFinal(v.state)) return html``;
  return html`<section class="card pay" aria-labelledby="wallet-title"><h2 id="wallet-title">${wallet.name}</h2>
<p class="muted">${t.walletNote}</p>
${wallet.url ? html`<a class="button" id="wallet-pay" href="${wallet.url}">${t.walletPay(wallet.name)}</a>` : ''}
${wallet.app ? html`<a class="button secondary on-phone" id="wallet-app" href="${wallet.app}">${t.walletApp(wallet.name)}</a>` : ''}</section>`;
}

function sandboxBlock(v: CheckoutView, t: CheckoutText, refused: boolean): Html {
  // An e-wallet payment's sandbox is its wallet's page (walletPage), behind the wallet's button.
  if (!v.sandbox || isFinal(v.state) || v.wallet) return html``;
  const notice = refused ? html`<p role="alert" class="status s-failed">${t.sandboxRefused}</p>` : '';
  if (!v.sandbox.canPay) return refused ? html`<section class="card pay">${notice}</section>` : html``;
  const amount = v.sandbox.needsAmount
    ? html`<label>${t.sandboxAmount}<input name="amount" inputmode="numeric" required pattern="[0-9]+([.,][0-9]{2})?"></label>`
    : '';
  return html`<section class="card pay" aria-labelledby="sandbox-title"><h2 id="sandbox-title">Sandbox</h2>${notice}
<p class="muted">${t.sandboxNote}</p>
<form method="post" action="/pay/${v.checkoutId}/sandbox-pay">${amount}<button type="submit" id="sandbox-pay">${t.sandboxPay}</button></form></section>`;
}

/** The receipt (shown once paid) and the way back to the shop (shown once the payment ended). */
function endBlocks(v: CheckoutView, t: CheckoutText): Html {
  const isPaid = v.state === 'paid';
  const paidAmount = v.paidAmount ?? v.amount;
  const receipt = html`<section class="card" id="receipt" aria-labelledby="receipt-title"${isPaid ? '' : html` hidden`}><h2 id="receipt-title">${t.receipt}</h2>
<dl><dt>${t.merchant}</dt><dd>${v.merchantName}</dd><dt>${t.amount}</dt><dd>${paidAmount === null ? t.anyAmount : rupiahShort(paidAmount)}</dd>
<dt>${t.paidAt}</dt><dd id="paid-at">${v.paidAt === null ? '—' : jakartaWhen(v.paidAt, t)}</dd>
<dt>${t.reference}</dt><dd>${v.referenceNo}</dd><dt>${t.order}</dt><dd>${v.orderNo}</dd></dl></section>`;
  if (!v.returnUrl) return receipt;
  return html`${receipt}<section class="card" id="back"${isFinal(v.state) ? '' : html` hidden`}>
<p id="redirecting"${isPaid ? '' : html` hidden`}>${t.redirecting}</p>
<a class="button" href="${v.returnUrl}">${t.backToShop}</a></section>`;
}

/** What the payer pays with: the QR to scan, the VA number to transfer to, or the wallet to approve in. */
function methodBlock(v: CheckoutView, t: CheckoutText, qrSvg: string | undefined): Html {
  switch (v.kind) {
    case 'qris':
      return qrisBlock(v, t, qrSvg);
    case 'va':
      return vaBlock(v, t);
    case 'ewallet':
      return walletBlock(v, t);
    default:
      return assertNever(v.kind, 'payment method');
  }
}

/** The `<head>` extras: without script a waiting page reloads itself; a paid one goes back to the shop. */
function headOf(v: CheckoutView): Html | string {
  if (!isFinal(v.state) && v.qrContent === '') {
    // No status change announces an upstream QR once issued: every page reloads until it is there.
    return html`\n<meta http-equiv="refresh" content="3">`;
  }
  if (!isFinal(v.state)) return html`\n<noscript><meta http-equiv="refresh" content="5"></noscript>`;
  if (v.state === 'paid' && v.returnUrl) {
    // The returnUrl exactly as kept and linked (checkout-link.ts), unquoted: HTML's declarative
    // refresh takes the rest of the value as the URL, so no quote inside it can end it early.
    return html`\n<meta http-equiv="refresh" content="3; url=${v.returnUrl}">`;
  }
  return '';
}

/** Labels the script needs, in the page's language (data-l-<state>, data-n-<state>). */
function labels(t: CheckoutText): Html {
  return html`${STATES.map((s) => html` data-l-${s}="${t.state[s]}" data-n-${s}="${t.stateNote[s]}"`)} data-l-copied="${t.copied}" data-months="${t.months.join(',')}"`;
}

export interface CheckoutPageInput {
  view: CheckoutView;
  lang: Lang;
  nowMs: number;
  /** The QR as SVG markup (QRIS with content only). */
  qrSvg?: string;
  /** The last sandbox payment was refused. */
  sandboxRefused?: boolean;
}

export function checkoutPage(input: CheckoutPageInput): string {
  const { view: v, lang, nowMs } = input;
  const t = TEXT[lang];
  const path = `/pay/${v.checkoutId}`;
  const body = html`<main id="checkout" data-events="${path}/events" data-state="${v.state}" data-seq="${v.seq}"${labels(t)}>
${statusBlock(v, t, nowMs)}
${methodBlock(v, t, input.qrSvg)}
${sandboxBlock(v, t, input.sandboxRefused ?? false)}
${endBlocks(v, t)}
</main>`;
  return layout({ lang, title: `${t.title} · ${v.merchantName}`, head: headOf(v), path }, body);
}

/**
 * The sandbox wallet's page (docs/ewallets.md#sandbox): the stand-in for a wallet's app, where the
 * payer approves or declines the payment; once answered, only the way back to the checkout.
 */
export function walletPage(input: { view: CheckoutView; lang: Lang }): string {
  const { view: v, lang } = input;
  const t = TEXT[lang];
  const wallet = v.wallet?.name ?? '';
  const path = `/pay/${v.checkoutId}/wallet`;
  const back = html`<a class="button secondary" href="/pay/${v.checkoutId}">${t.title}</a>`;
  const answer = (value: string, label: string, cls: string) =>
    html`<form method="post" action="${path}"><input type="hidden" name="answer" value="${value}"><button type="submit" id="wallet-${value}" class="${cls}">${label}</button></form>`;
  const body = isFinal(v.state)
    ? html`<p role="status">${t.walletDone}</p>${back}`
    : html`<p>${t.walletAsk(v.merchantName)}</p>
<p class="amount"><span class="muted">${t.amount}</span><br>${v.amount === null ? '' : rupiahShort(v.amount)}</p>
<dl><dt>${t.order}</dt><dd>${v.orderNo}</dd></dl>
<div class="answers">${answer('approve', t.walletApprove, '')}${answer('decline', t.walletDecline, 'secondary')}</div>
<p class="muted">${t.walletSandbox}</p>`;
  return layout(
    { lang, title: t.walletTitle(wallet), path },
    html`<main id="wallet"><section class="card" aria-labelledby="wallet-name"><h1 id="wallet-name">${wallet}</h1>${body}</section></main>`,
  );
}

/**
 * The sandbox wallet's consent page (docs/ewallets.md#account-binding): the stand-in for a wallet's
 * app, where the customer links their account to the merchant or declines.
 */
export function bindingPage(input: { consentId: string; merchantName: string; wallet: string; lang: Lang }): string {
  const { consentId, merchantName, wallet, lang } = input;
  const t = TEXT[lang];
  const path = `/bind/${consentId}`;
  const answer = (value: string, label: string, cls: string) =>
    html`<form method="post" action="${path}"><input type="hidden" name="answer" value="${value}"><button type="submit" id="bind-${value}" class="${cls}">${label}</button></form>`;
  return layout(
    { lang, title: t.bindTitle(wallet), path },
    html`<main id="bind"><section class="card" aria-labelledby="wallet-name"><h1 id="wallet-name">${wallet}</h1>
<p>${t.bindAsk(merchantName, wallet)}</p>
<div class="answers">${answer('approve', t.bindApprove, '')}${answer('decline', t.bindDecline, 'secondary')}</div>
<p class="muted">${t.bindSandbox}</p></section></main>`,
  );
}

/** After the answer: back to the shop at once (the customer's way back carries the authCode). */
export function boundPage(input: { consentId: string; back: string; approved: boolean; lang: Lang }): string {
  const t = TEXT[input.lang];
  return layout(
    {
      lang: input.lang,
      title: t.bindBack,
      path: `/bind/${input.consentId}`,
      head: html`<meta http-equiv="refresh" content="0;url=${input.back}">`,
    },
    html`<main id="bind"><section class="card"><p role="status">${input.approved ? t.bindDoneApproved : t.bindDoneDeclined}</p>
<a class="button" id="bind-back" href="${input.back}">${t.bindBack}</a></section></main>`,
  );
}

import type { NotificationRecord, StoredAttempt } from '../delivery/notification-operations.ts';
import type { StatusHistoryEntry, TransactionRecord } from '../payments/transaction-reads.ts';
import { FAVICON_PATH } from './assets.ts';
import { jakartaTime, rupiah, statusName } from './format.ts';
import { type Html, html } from './html.ts';

export interface Flash {
  kind: 'ok' | 'error';
  text: string;
}

export interface LayoutOptions {
  title: string;
  area: 'operator' | 'portal' | 'none';
  active?: string;
  /** Who is signed in, as shown in the header. */
  who?: string;
  csrf?: string;
  /** What the Log out button ends (every session of the key, or of the merchant's portal). */
  signOut?: string;
  sandbox?: boolean;
  flash?: Flash | undefined;
}

const OPERATOR_NAV: Array<[string, string]> = [
  ['overview', 'Overview'],
  ['merchants', 'Merchants'],
  ['transactions', 'Transactions'],
  ['notifications', 'Notifications'],
  ['books', 'Books'],
  ['sandbox', 'Sandbox'],
  ['providers', 'Providers'],
];
const PORTAL_NAV: Array<[string, string]> = [
  ['portal', 'Transactions'],
  ['portal/settlements', 'Settlements'],
  ['portal/deliveries', 'Deliveries'],
  ['portal/settings', 'Callback settings'],
];

/**
 * What logging out ends, said next to the button: every session of the admin key (every browser
 * signed in with it), or every portal session of the merchant.
 */
export const operatorSignOutNote = (keyName: string) => `Log out signs out every browser using the key ${keyName}`;
export const portalSignOutNote = (merchantName: string) =>
  `Log out signs out every browser in the portal of ${merchantName}`;

export function csrfField(token: string | undefined): Html {
  return html`<input type="hidden" name="_csrf" value="${token ?? ''}">`;
}

export function layout(o: LayoutOptions, body: Html): string {
  const items = o.area === 'operator' ? OPERATOR_NAV.filter(([k]) => k !== 'sandbox' || o.sandbox) : PORTAL_NAV;
  const nav =
    o.area === 'none'
      ? ''
      : html`<nav aria-label="Main">${items.map(
          ([k, label]) => html`<a href="/console/${k}"${o.active === k ? html` aria-current="page"` : ''}>${label}</a>`,
        )}</nav>
        <div class="who"><span>${o.who ?? ''}</span>
          <form class="inline" method="post" action="${o.area === 'portal' ? '/console/portal/logout' : '/console/logout'}">
            ${csrfField(o.csrf)}<button type="submit" aria-describedby="sign-out-note">Log out</button></form>
          <span class="sign-out-note" id="sign-out-note">${o.signOut ?? ''}</span></div>`;
  return html`<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<meta name="referrer" content="no-referrer">
<title>${o.title} · snapgate ${o.area === 'portal' ? 'merchant portal' : 'console'}</title>
<link rel="icon" type="image/svg+xml" href="${FAVICON_PATH}">
<link rel="stylesheet" href="/console/assets/console.css">
<script src="/console/assets/console.js" defer></script>
</head>
<body>
<a class="skip" href="#main">Skip to content</a>
<header class="top"><span class="brand">snapgate ${o.area === 'portal' ? 'merchant portal' : 'console'}</span>${nav}</header>
<main id="main" tabindex="-1">
${o.flash ? html`<div class="flash ${o.flash.kind}" role="${o.flash.kind === 'error' ? 'alert' : 'status'}">${o.flash.text}</div>` : ''}
${body}
</main>
</body>
</html>`.value;
}

export const badge = (cls: string, text: string) => html`<span class="badge ${cls}">${text}</span>`;
export const statusBadge = (status: string) => badge(`s-${status}`, statusName(status));

/** A refused form's problems, above the form that is shown again with what was typed. */
export function formProblems(what: string, problems: readonly string[]): Html {
  return html`<div class="flash error" role="alert" id="form-problems"><p>${what}</p>${
    problems.length ? html`<ul>${problems.map((p) => html`<li>${p}</li>`)}</ul>` : ''
  }</div>`;
}

export function empty(text: string): Html {
  return html`<p class="empty">${text}</p>`;
}

export function transactionTable(rows: TransactionRecord[], base: string, merchantNames?: Map<string, string>): Html {
  if (rows.length === 0) return empty('No transactions match these filters.');
  return html`<div class="table-wrap"><table>
<thead><tr><th>Created</th><th>Reference</th><th>Partner reference</th>${merchantNames ? html`<th class="hide-narrow">Merchant</th>` : ''}<th>Kind</th><th class="num">Amount</th><th>Status</th></tr></thead>
<tbody>${rows.map(
    (t) => html`<tr>
<td>${jakartaTime(t.createdAt)}</td>
<td><a href="${base}/transactions/${encodeURIComponent(t.referenceNo)}">${t.referenceNo}</a></td>
<td>${t.partnerReferenceNo}</td>
${merchantNames ? html`<td class="hide-narrow">${merchantNames.get(t.merchantId) ?? t.merchantId}</td>` : ''}
<td>${t.kind === 'qris' ? 'QRIS' : 'VA'}</td>
<td class="num">${rupiah(t.amount)}</td>
<td>${statusBadge(t.status)}</td></tr>`,
  )}</tbody></table></div>`;
}

export function notificationTable(rows: NotificationRecord[], base: string, merchantNames?: Map<string, string>): Html {
  if (rows.length === 0) return empty('No notifications here.');
  return html`<div class="table-wrap"><table>
<thead><tr><th>Id</th><th>Transaction</th>${merchantNames ? html`<th class="hide-narrow">Merchant</th>` : ''}<th>State</th><th class="num">Attempts</th><th>Created</th><th class="hide-narrow">Last error</th></tr></thead>
<tbody>${rows.map(
    (n) => html`<tr>
<td>${n.id}</td>
<td><a href="${base}/transactions/${encodeURIComponent(n.referenceNo)}#n-${n.id}">${n.referenceNo}</a></td>
${merchantNames ? html`<td class="hide-narrow">${merchantNames.get(n.merchantId) ?? n.merchantId}</td>` : ''}
<td>${badge(n.state, n.state)}</td>
<td class="num">${n.attemptCount}</td>
<td>${jakartaTime(n.createdAt)}</td>
<td class="hide-narrow">${n.lastError ?? ''}</td></tr>`,
  )}</tbody></table></div>`;
}

const pretty = (text: string | null) => {
  if (text === null) return '';
  try {
    return JSON.stringify(JSON.parse(text), null, 2);
  } catch {
    return text;
  }
};

export interface DetailOptions {
  /** `/console` or `/console/portal`. */
  base: string;
  csrf: string;
  canReplay: boolean;
  merchantName?: string;
  /** Sandbox actions (operators with the operate scope, sandbox mode). */
  sandbox?: Html;
  /** The transaction's ledger entries (operators). */
  ledger?: Html;
}

export function transactionDetail(
  t: TransactionRecord,
  history: StatusHistoryEntry[],
  notifications: Array<{ notification: NotificationRecord; attempts: StoredAttempt[] }>,
  o: DetailOptions,
): Html {
  const payer = t.details.payer ?? t.details.additionalInfo;
  return html`
<h1>Transaction ${t.referenceNo}</h1>
<div class="grid">
<section class="card" aria-labelledby="h-summary"><h2 id="h-summary">Summary</h2>
<dl class="kv">
<dt>Status</dt><dd>${statusBadge(t.status)}${t.statusDesc ? html` <span class="muted">${t.statusDesc}</span>` : ''}</dd>
<dt>Kind</dt><dd>${t.kind === 'qris' ? 'QRIS' : 'Virtual account'}</dd>
${o.merchantName !== undefined ? html`<dt>Merchant</dt><dd><a href="/console/merchants/${encodeURIComponent(t.merchantId)}">${o.merchantName}</a></dd>` : ''}
<dt>Partner reference</dt><dd>${t.partnerReferenceNo}</dd>
<dt>Amount</dt><dd>${t.amount === null ? 'open amount' : rupiah(t.amount)}</dd>
<dt>Paid</dt><dd>${rupiah(t.paidAmount)}${t.paidAt ? html` <span class="muted">at ${jakartaTime(t.paidAt)}</span>` : ''}</dd>
<dt>Refunded</dt><dd>${rupiah(t.refundedAmount)}</dd>
${t.virtualAccountNo ? html`<dt>VA number</dt><dd>${t.virtualAccountNo}</dd>` : ''}
<dt>Created</dt><dd>${jakartaTime(t.createdAt)}</dd>
<dt>Expires</dt><dd>${jakartaTime(t.expiresAt)}</dd>
</dl>
${payer !== undefined ? html`<h3>Details</h3><pre>${JSON.stringify(payer, null, 2)}</pre>` : ''}
</section>
${t.kind === 'qris' ? html`<section class="card qr" aria-labelledby="h-qr"><h2 id="h-qr">QR</h2><img src="/qr/${encodeURIComponent(t.referenceNo)}.png" alt="QRIS code of ${t.referenceNo}" width="220" height="220"></section>` : ''}
<section class="card" aria-labelledby="h-history"><h2 id="h-history">Status history</h2>
${
  history.length === 0
    ? empty('No status change yet.')
    : html`<ol class="timeline">${history.map(
        (h) => html`<li><strong>${statusName(h.status)}</strong>${h.statusDesc ? html` · ${h.statusDesc}` : ''}<br>
<span class="muted">${jakartaTime(h.changedAt)}${h.reason ? html` · ${h.reason}` : ''}</span></li>`,
      )}</ol>`
}
</section>
</div>
${o.ledger ?? ''}
${o.sandbox ?? ''}
<section aria-labelledby="h-notifications"><h2 id="h-notifications">Notifications</h2>
${
  notifications.length === 0
    ? empty('No notification was sent for this transaction.')
    : notifications.map(({ notification, attempts }) => notificationCard(notification, attempts, o))
}
</section>`;
}

function notificationCard(n: NotificationRecord, attempts: StoredAttempt[], o: DetailOptions): Html {
  // Every attempt sent these same stored bytes.
  const body = pretty(n.body);
  return html`<article class="card" id="n-${n.id}" aria-label="Notification ${n.id}">
<h3>Notification ${n.id} ${badge(n.state, n.state)}</h3>
<dl class="kv">
<dt>Status sent</dt><dd>${statusName(n.latestStatus)}</dd>
<dt>Attempts</dt><dd>${n.attemptCount}</dd>
<dt>Created</dt><dd>${jakartaTime(n.createdAt)}</dd>
<dt>Next attempt</dt><dd>${jakartaTime(n.nextAttemptAt)}</dd>
<dt>Delivered</dt><dd>${jakartaTime(n.deliveredAt)}</dd>
${n.lastError ? html`<dt>Last error</dt><dd>${n.lastError}</dd>` : ''}
</dl>
${
  o.canReplay
    ? html`<form method="post" action="${o.base}/notifications/${encodeURIComponent(n.id)}/replay" class="actions">${csrfField(o.csrf)}<button type="submit">Replay notification ${n.id}</button></form>`
    : ''
}
<details><summary>Request body</summary><pre>${body}</pre></details>
${
  attempts.length === 0
    ? html`<p class="muted">No attempt yet.</p>`
    : attempts.map(
        (
          a,
        ) => html`<details class="attempt"><summary>Attempt ${a.attemptNo}: ${badge(a.outcome, a.outcome)} HTTP ${a.responseStatus ?? '—'} · ${a.durationMs} ms · ${jakartaTime(a.startedAt)}</summary>
<dl class="kv">
<dt>URL</dt><dd>${a.url ?? '—'}</dd>
<dt>Duration</dt><dd>${a.durationMs} ms</dd>
<dt>Response status</dt><dd>${a.responseStatus ?? '—'}</dd>
${a.error ? html`<dt>Error</dt><dd>${a.error}</dd>` : ''}
</dl>
<h4>Request headers</h4><pre>${Object.entries(a.requestHeaders)
          .map(([k, v]) => `${k}: ${v}`)
          .join('\n')}</pre>
<h4>Request body</h4><pre>${body}</pre>
<h4>Response body</h4><pre class="response-body">${a.responseBody ?? ''}</pre>
</details>`,
      )
}
</article>`;
}

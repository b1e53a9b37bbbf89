import type { NotificationRecord } from '../delivery/notification-operations.ts';
import { methodOf } from '../methods/index.ts';
import type { TransactionRecord } from '../payments/transaction-reads.ts';
import { jakartaTime, rupiah, statusName } from '../web/format.ts';
import { type Html, html } from '../web/html.ts';
import { FAVICON_PATH } from './assets.ts';

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
  /** Where the Log out button posts, when not the area's own (a merchant user's session). */
  signOutAction?: string;
  /** What the header calls the product (the area's own name unless given). */
  product?: string;
  sandbox?: boolean;
  /** Only these entries of the menu (an `approve` key sees Payouts alone); all of them unless given. */
  menu?: readonly string[] | undefined;
  flash?: Flash | undefined;
}

const OPERATOR_NAV: Array<[string, string]> = [
  ['overview', 'Overview'],
  ['merchants', 'Merchants'],
  ['transactions', 'Transactions'],
  ['notifications', 'Notifications'],
  ['books', 'Books'],
  ['payouts', 'Payouts'],
  ['sandbox', 'Sandbox'],
  ['providers', 'Providers'],
  ['access', 'Access'],
];
const PORTAL_NAV: Array<[string, string]> = [
  ['portal', 'Transactions'],
  ['portal/settlements', 'Settlements'],
  ['portal/payouts', 'Payouts'],
  ['portal/deliveries', 'Deliveries'],
  ['portal/settings', 'Callback settings'],
  ['portal/two-factor', 'Two-factor sign-in'],
];
/** The portal's menu when opened with an operator's link: no merchant user, so no two-factor sign-in. */
export const LINK_PORTAL_MENU = PORTAL_NAV.map(([k]) => k).filter((k) => k !== 'portal/two-factor');

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

const productOf = (o: LayoutOptions) => o.product ?? (o.area === 'portal' ? 'merchant portal' : 'console');

export function layout(o: LayoutOptions, body: Html): string {
  const items = (
    o.area === 'operator' ? OPERATOR_NAV.filter(([k]) => k !== 'sandbox' || o.sandbox) : PORTAL_NAV
  ).filter(([k]) => o.menu === undefined || o.menu.includes(k));
  const nav =
    o.area === 'none'
      ? ''
      : html`<nav aria-label="Main">${items.map(
          ([k, label]) => html`<a href="/console/${k}"${o.active === k ? html` aria-current="page"` : ''}>${label}</a>`,
        )}</nav>
        <div class="who"><span>${o.who ?? ''}</span>
          <form class="inline" method="post" action="${o.signOutAction ?? (o.area === 'portal' ? '/console/portal/logout' : '/console/logout')}">
            ${csrfField(o.csrf)}<button type="submit" aria-describedby="sign-out-note">Log out</button></form>
          <span class="sign-out-note" id="sign-out-note">${o.signOut ?? ''}</span></div>`;
  return html`<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<meta name="referrer" content="no-referrer">
<title>${o.title} · snapgate ${productOf(o)}</title>
<link rel="icon" type="image/svg+xml" href="${FAVICON_PATH}">
<link rel="stylesheet" href="/console/assets/console.css">
<script src="/console/assets/console.js" defer></script>
</head>
<body>
<a class="skip" href="#main">Skip to content</a>
<header class="top"><span class="brand">snapgate ${productOf(o)}</span>${nav}</header>
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
  return html`<div class="table-wrap"><table class="stack">
<thead><tr><th>Created</th><th>Reference</th><th>Partner reference</th>${merchantNames ? html`<th>Merchant</th>` : ''}<th>Kind</th><th class="num">Amount</th><th>Status</th></tr></thead>
<tbody>${rows.map(
    (t) => html`<tr>
<td data-label="Created">${jakartaTime(t.createdAt)}</td>
<td data-label="Reference"><a href="${base}/transactions/${encodeURIComponent(t.referenceNo)}">${t.referenceNo}</a></td>
<td data-label="Partner reference">${t.partnerReferenceNo}</td>
${merchantNames ? html`<td data-label="Merchant">${merchantNames.get(t.merchantId) ?? t.merchantId}</td>` : ''}
<td data-label="Kind">${methodOf(t.kind).label.short}</td>
<td data-label="Amount" class="num amount">${rupiah(t.amount)}</td>
<td data-label="Status" class="status">${statusBadge(t.status)}</td></tr>`,
  )}</tbody></table></div>`;
}

/**
 * The page of what a notification tells: its transaction's, or for a transfer callback its payout's
 * (the console's page of it; the portal lists its payouts on one page). `base`: `/console` or
 * `/console/portal`.
 */
export function notificationSubjectHref(base: string, n: Pick<NotificationRecord, 'kind' | 'referenceNo'>): string {
  if (n.kind !== 'transfer') return `${base}/transactions/${encodeURIComponent(n.referenceNo)}`;
  // A disbursement's reference is its payout's id in capitals (payouts/payout-service.ts).
  const payoutId = `po_${n.referenceNo.slice(2).toLowerCase()}`;
  return base === '/console' ? `/console/payouts/${encodeURIComponent(payoutId)}` : `${base}/payouts#${payoutId}`;
}

export function notificationTable(rows: NotificationRecord[], base: string, merchantNames?: Map<string, string>): Html {
  if (rows.length === 0) return empty('No notifications here.');
  return html`<div class="table-wrap"><table class="stack">
<thead><tr><th>Id</th><th>Transaction</th>${merchantNames ? html`<th>Merchant</th>` : ''}<th>State</th><th class="num">Attempts</th><th>Created</th><th class="hide-narrow">Last error</th></tr></thead>
<tbody>${rows.map(
    (n) => html`<tr>
<td data-label="Id">${n.id}</td>
<td data-label="Transaction"><a href="${notificationSubjectHref(base, n)}${n.kind === 'transfer' ? '' : `#n-${n.id}`}">${n.referenceNo}</a></td>
${merchantNames ? html`<td data-label="Merchant">${merchantNames.get(n.merchantId) ?? n.merchantId}</td>` : ''}
<td data-label="State" class="status">${badge(n.state, n.state)}</td>
<td data-label="Attempts" class="num">${n.attemptCount}</td>
<td data-label="Created">${jakartaTime(n.createdAt)}</td>
<td data-label="Last error">${n.lastError ?? ''}</td></tr>`,
  )}</tbody></table></div>`;
}

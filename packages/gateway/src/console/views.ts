import { fromMinorUnits, toMinorUnits } from '@snapgate/snap';
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
  area: 'operator' | 'portal' | 'merchant' | 'none';
  active?: string;
  /** Who is signed in, as shown in the header. */
  who?: string;
  csrf?: string;
  /** What the Log out button ends (every session of the key, or of the merchant's portal). */
  signOut?: string;
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
/** The merchant dashboard's menu, under /merchant (a merchant user signed in). */
const MERCHANT_NAV: Array<[string, string]> = [
  ['transactions', 'Transactions'],
  ['links', 'Payment links'],
  ['settlements', 'Balance'],
  ['payouts', 'Payouts'],
  ['deliveries', 'Deliveries'],
  ['settings', 'Callbacks'],
  ['client-secret', 'Client secret'],
  ['users', 'Users'],
  ['two-factor', 'Two-factor'],
];
const NAVS = {
  operator: { items: OPERATOR_NAV, base: '/console', logout: '/console/logout' },
  portal: { items: PORTAL_NAV, base: '/console', logout: '/console/portal/logout' },
  merchant: { items: MERCHANT_NAV, base: '/merchant', logout: '/merchant/logout' },
} as const;

/**
 * What logging out ends, said next to the button: every session of the admin key (every browser
 * signed in with it), or every portal session of the merchant.
 */
export const operatorSignOutNote = (keyName: string) => `Log out signs out every browser using the key ${keyName}`;
/** What a merchant user's Log out ends: every session of theirs. */
export const USER_SIGN_OUT_NOTE = 'Log out signs you out in every browser where you are signed in';
export const portalSignOutNote = (merchantName: string) =>
  `Log out signs out every browser in the portal of ${merchantName}`;

export function csrfField(token: string | undefined): Html {
  return html`<input type="hidden" name="_csrf" value="${token ?? ''}">`;
}

const PRODUCTS = { operator: 'console', portal: 'merchant portal', merchant: 'merchant dashboard', none: 'console' };
const productOf = (o: LayoutOptions) => o.product ?? PRODUCTS[o.area];

function navOf(o: LayoutOptions): Html | string {
  if (o.area === 'none') return '';
  const { items, base, logout } = NAVS[o.area];
  const shown = items
    .filter(([k]) => k !== 'sandbox' || o.sandbox)
    .filter(([k]) => o.menu === undefined || o.menu.includes(k));
  return html`<nav aria-label="Main">${shown.map(
    ([k, label]) => html`<a href="${base}/${k}"${o.active === k ? html` aria-current="page"` : ''}>${label}</a>`,
  )}</nav>
        <div class="who"><span>${o.who ?? ''}</span>
          <form class="inline" method="post" action="${logout}">
            ${csrfField(o.csrf)}<button type="submit" aria-describedby="sign-out-note">Log out</button></form>
          <span class="sign-out-note" id="sign-out-note">${o.signOut ?? ''}</span></div>`;
}

export function layout(o: LayoutOptions, body: Html): string {
  const nav = navOf(o);
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

/**
 * What a paid transaction brought the merchant: the fee charged, and the net (paid, less the fee and
 * what was refunded; the fee stays with a refund: docs/books.md#fees). Nothing for one never paid.
 */
export function feeAndNet(
  t: Pick<TransactionRecord, 'paidAmount' | 'feeAmount' | 'refundedAmount'>,
): { fee: string; net: string } | undefined {
  if (t.paidAmount === null) return undefined;
  const netSen = toMinorUnits(t.paidAmount) - toMinorUnits(t.feeAmount) - toMinorUnits(t.refundedAmount);
  return { fee: t.feeAmount, net: netSen < 0n ? `-${fromMinorUnits(-netSen)}` : fromMinorUnits(netSen) };
}

/**
 * Transactions, newest first. `o.names`: the merchant column (operators); `o.withNet`: each one's fee
 * and net (the merchant's own pages).
 */
export function transactionTable(
  rows: TransactionRecord[],
  base: string,
  o: { names?: Map<string, string>; withNet?: boolean } = {},
): Html {
  if (rows.length === 0) return empty('No transactions match these filters.');
  const { names, withNet } = o;
  const money = (t: TransactionRecord) => {
    const fn = feeAndNet(t);
    return html`<td data-label="Fee" class="num">${rupiah(fn?.fee)}</td><td data-label="Net" class="num net">${rupiah(fn?.net)}</td>`;
  };
  return html`<div class="table-wrap"><table class="stack transactions">
<thead><tr><th>Created</th><th>Reference</th><th>Partner reference</th>${names ? html`<th>Merchant</th>` : ''}<th>Kind</th><th class="num">Amount</th>${withNet ? html`<th class="num">Fee</th><th class="num">Net</th>` : ''}<th>Status</th></tr></thead>
<tbody>${rows.map(
    (t) => html`<tr data-reference="${t.referenceNo}">
<td data-label="Created">${jakartaTime(t.createdAt)}</td>
<td data-label="Reference" class="ids"><a href="${base}/transactions/${encodeURIComponent(t.referenceNo)}">${t.referenceNo}</a></td>
<td data-label="Partner reference" class="ids">${t.partnerReferenceNo}</td>
${names ? html`<td data-label="Merchant">${names.get(t.merchantId) ?? t.merchantId}</td>` : ''}
<td data-label="Kind">${methodOf(t.kind).label.short}</td>
<td data-label="Amount" class="num amount">${rupiah(t.amount)}</td>
${withNet ? money(t) : ''}
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

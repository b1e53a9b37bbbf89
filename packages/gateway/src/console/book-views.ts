import { type Balance, money } from '../books/ledger-service.ts';
import { linesOf, payoutIdOfCause } from '../books/postings.ts';
import type { ReportLayout } from '../books/settlement-report.ts';
import type { SettlementService } from '../books/settlement-service.ts';
import { jakartaTime, rupiah } from '../web/format.ts';
import { type Html, html } from '../web/html.ts';
import { badge, empty } from './views.ts';

// The books as the console and the portal show them (docs/books.md): balances, settlements and
// ledger entries. Amounts are integer sen in the records, Rupiah here; times WIB.

/** A settlement and a ledger entry, as the settlement service gives them. */
export type SettlementRecord = Awaited<ReturnType<SettlementService['show']>>['settlement'];
export type LedgerEntry = Awaited<ReturnType<SettlementService['show']>>['entries'][number];
type LedgerLine = ReturnType<typeof linesOf>[number];

/**
 * Who is looking: links go to the operator's pages, or to the merchant's own pages where they are
 * (the portal of an operator's sign-in link, or the dashboard of a merchant user).
 */
export type BookArea = 'operator' | MerchantBase;
/** Where a merchant's own pages are: the portal (an operator's sign-in link) or the dashboard (a merchant user). */
export type MerchantBase = '/console/portal' | '/merchant';

const pathsOf = (area: BookArea) =>
  area === 'operator'
    ? { transactions: '/console/transactions', settlements: '/console/books/settlements' }
    : { transactions: `${area}/transactions`, settlements: `${area}/settlements` };

/** Sen as Rupiah: `Rp 14.895,00`. */
export const sen = (value: bigint) => rupiah(money(value));

/** Where a payout is shown: its own page (operators), or its row of the merchant's list. */
export const payoutHref = (area: BookArea, id: string) =>
  area === 'operator' ? `/console/payouts/${encodeURIComponent(id)}` : `${area}/payouts#${encodeURIComponent(id)}`;

export const settlementHref = (area: BookArea, id: string) => `${pathsOf(area).settlements}/${encodeURIComponent(id)}`;

/** A settlement's two downloads: the report for programs, and for a spreadsheet (with its summary). */
export function reportLinks(area: BookArea, id: string): Html {
  const href = `${settlementHref(area, id)}/report.csv`;
  return html`<p class="actions"><a class="button secondary" id="report-link" href="${href}" download>Download report (CSV)</a>
<a class="button secondary" id="report-spreadsheet-link" href="${href}?layout=spreadsheet" download>For a spreadsheet (with a summary)</a></p>
<p class="muted">The spreadsheet copy starts with the settlement's totals and keeps long references as text; the plain CSV is for programs.</p>`;
}

/** `?layout=spreadsheet` of a report's download; anything else is the plain CSV. */
export const layoutOf = (query: unknown): ReportLayout =>
  (query as { layout?: unknown } | undefined)?.layout === 'spreadsheet' ? 'spreadsheet' : 'data';

const TABS: Array<[string, string, string]> = [
  ['balances', 'Balances', '/console/books'],
  ['journal', 'Journal', '/console/books/journal'],
  ['settlements', 'Settlements', '/console/books/settlements'],
  ['reconciliations', 'Reconciliation', '/console/books/reconciliations'],
  ['verify', 'Verify ledger', '/console/books/verify'],
];

/** The Books area's own navigation, under the menu's "Books". */
export function booksTabs(current: string): Html {
  return html`<nav class="tabs" aria-label="Books">${TABS.map(
    ([k, label, href]) => html`<a href="${href}"${k === current ? html` aria-current="page"` : ''}>${label}</a>`,
  )}</nav>`;
}

/** One merchant's balance as four figures (the portal). */
export function balanceStats(b: Balance): Html {
  const stat = (id: string, label: string, value: string, note: string) =>
    html`<section class="card" aria-labelledby="h-${id}"><h2 id="h-${id}">${label}</h2><p class="stat" id="balance-${id}">${rupiah(value)}</p><p class="muted">${note}</p></section>`;
  return html`<div class="grid">
${stat('pending', 'Pending', b.pending, 'Paid to you less fees, refunds and what you sent, not yet in a settlement.')}
${stat('settling', 'Settling', b.settling, 'In settlements not yet paid out.')}
${stat('paid-out', 'Paid out', b.paidOut, 'Transferred to you to date.')}
${stat('fees', 'Fees', b.fees, 'Charged to date.')}
</div>`;
}

/** Every merchant's balance, with the totals (the operator's Books page). */
export function balanceTable(rows: Array<{ merchant: { id: string; name: string }; balance: Balance }>): Html {
  if (rows.length === 0) return empty('No merchant yet.');
  const total = (pick: (b: Balance) => string) =>
    rupiah(money(rows.reduce((sum, r) => sum + BigInt(pick(r.balance).replace('.', '')), 0n)));
  return html`<div class="table-wrap"><table id="balances" class="stack">
<thead><tr><th>Merchant</th><th class="num">Pending</th><th class="num">Settling</th><th class="num">Paid out</th><th class="num">Fees</th><th class="hide-narrow">Settlements</th></tr></thead>
<tbody>${rows.map(
    ({ merchant: m, balance: b }) => html`<tr data-merchant="${m.id}">
<td data-label="Merchant"><a href="/console/merchants/${encodeURIComponent(m.id)}">${m.name}</a></td>
<td data-label="Pending" class="num pending">${rupiah(b.pending)}</td><td data-label="Settling" class="num settling">${rupiah(b.settling)}</td>
<td data-label="Paid out" class="num paid-out">${rupiah(b.paidOut)}</td><td data-label="Fees" class="num fees">${rupiah(b.fees)}</td>
<td data-label="" class="hide-narrow"><a href="/console/books/settlements?merchant=${encodeURIComponent(m.id)}">Settlements</a></td></tr>`,
  )}</tbody>
<tfoot><tr><th>All merchants</th><td data-label="Pending" class="num">${total((b) => b.pending)}</td><td data-label="Settling" class="num">${total((b) => b.settling)}</td><td data-label="Paid out" class="num">${total((b) => b.paidOut)}</td><td data-label="Fees" class="num">${total((b) => b.fees)}</td><td data-label="" class="hide-narrow"></td></tr></tfoot>
</table></div>`;
}

export const settlementBadge = (s: SettlementRecord) =>
  s.status === 'open'
    ? badge('open', 'open')
    : s.status === 'paying'
      ? badge('paying', 'being paid out')
      : badge('paid', 'paid out');

/**
 * Its latest payout through the bank (docs/payouts.md): the operator's page of it, or its row of the
 * portal's payouts. (payout-views.ts has the same link; a payout names no settlement view back.)
 */
function payoutLink(area: BookArea, id: string): Html {
  return html`<a href="${payoutHref(area, id)}">${id}</a>`;
}

/** Settlements, newest first; `names` adds the merchant column (operators). */
export function settlementTable(rows: SettlementRecord[], area: BookArea, names?: Map<string, string>): Html {
  if (rows.length === 0) return empty('No settlement here.');
  return html`<div class="table-wrap"><table id="settlements" class="stack">
<thead><tr><th>Created</th><th>Settlement</th>${names ? html`<th>Merchant</th>` : ''}<th class="hide-narrow">Cutoff</th><th class="num">Payments</th><th class="num hide-narrow">Gross</th><th class="num hide-narrow">Fees</th><th class="num hide-narrow">Refunds</th><th class="num">Net</th><th>Status</th><th class="hide-narrow">Payout</th></tr></thead>
<tbody>${rows.map(
    (s) => html`<tr>
<td data-label="Created">${jakartaTime(s.createdAt)}</td>
<td data-label="Settlement" class="ids"><a href="${settlementHref(area, s.id)}">${s.id}</a></td>
${names ? html`<td data-label="Merchant">${names.get(s.merchantId) ?? s.merchantId}</td>` : ''}
<td data-label="Cutoff" class="hide-narrow">${jakartaTime(s.cutoff)}</td>
<td data-label="Payments" class="num">${s.count}</td>
<td data-label="Gross" class="num hide-narrow">${sen(s.grossSen)}</td><td data-label="Fees" class="num hide-narrow">${sen(s.feesSen)}</td><td data-label="Refunds" class="num hide-narrow">${sen(s.refundsSen)}</td>
<td data-label="Net" class="num amount">${sen(s.netSen)}</td>
<td data-label="Status" class="status">${settlementBadge(s)}</td>
<td data-label="Payout" class="ids hide-narrow">${s.payoutId === null ? '' : payoutLink(area, s.payoutId)}</td></tr>`,
  )}</tbody></table></div>`;
}

/** A settlement's figures; `merchant` links the merchant (operators). */
export function settlementSummary(
  s: SettlementRecord,
  merchant?: { id: string; name: string },
  area: BookArea = merchant ? 'operator' : '/console/portal',
): Html {
  return html`<dl class="kv" id="settlement-summary">
<dt>Status</dt><dd>${settlementBadge(s)}</dd>
${merchant ? html`<dt>Merchant</dt><dd><a href="/console/merchants/${encodeURIComponent(merchant.id)}">${merchant.name}</a></dd>` : ''}
<dt>Cutoff</dt><dd>${jakartaTime(s.cutoff)} <span class="muted">(every unsettled entry before it)</span></dd>
<dt>Created</dt><dd>${jakartaTime(s.createdAt)}${s.slot ? html` <span class="muted">scheduled (${s.slot})</span>` : ''}</dd>
<dt>Payments</dt><dd>${s.count}</dd>
<dt>Gross</dt><dd>${sen(s.grossSen)}</dd>
<dt>Fees</dt><dd>${sen(s.feesSen)}</dd>
<dt>Refunds</dt><dd>${sen(s.refundsSen)}</dd>
<dt>Net</dt><dd><strong id="settlement-net">${sen(s.netSen)}</strong></dd>
<dt>Paid out</dt><dd id="settlement-paid">${s.paidAt === null ? '—' : html`${jakartaTime(s.paidAt)} · bank reference <strong>${s.bankReference}</strong>`}</dd>
<dt>Payout</dt><dd id="settlement-payout">${payoutState(s, area)}</dd>
${s.lastPayoutError === null ? '' : html`<dt>Last payout failed</dt><dd id="settlement-payout-error">${s.lastPayoutError}</dd>`}
</dl>`;
}

/** Where its payout through the bank stands, by the settlement's status and its latest payout. */
function payoutState(s: SettlementRecord, area: BookArea): Html | string {
  if (s.payoutId === null) return s.status === 'paid' ? 'recorded by hand' : '—';
  const link = payoutLink(area, s.payoutId);
  if (s.status === 'paying')
    return html`${link} <span class="muted">being paid out through the bank (or awaiting approval)</span>`;
  // Paid through the bank clears the error; one left is of a payout that failed before a marking by hand.
  if (s.status === 'paid')
    return s.lastPayoutError === null
      ? html`${link} <span class="muted">paid through the bank</span>`
      : html`${link} <span class="muted">did not pay; the settlement was then recorded paid by hand</span>`;
  return html`${link} <span class="muted">did not pay: the settlement may be paid out again</span>`;
}

/** An entry's kind in words: its name, underscores as spaces (`disbursement_paid`: disbursement paid). */
const kindName = (kind: LedgerEntry['kind']) => kind.replaceAll('_', ' ');

/** What an entry is about: its transaction (and refund), its disbursement, or its settlement. */
function entryReference(e: LedgerEntry, area: BookArea): Html {
  const p = pathsOf(area);
  if (e.kind === 'disbursement' || e.kind === 'disbursement_paid' || e.kind === 'disbursement_returned') {
    const shown = e.referenceNo ?? payoutIdOfCause(e.cause);
    return area === 'operator'
      ? html`<a href="/console/payouts/${encodeURIComponent(payoutIdOfCause(e.cause))}">${shown}</a>`
      : html`${shown}`;
  }
  if (e.referenceNo !== null) {
    return html`<a href="${p.transactions}/${encodeURIComponent(e.referenceNo)}">${e.referenceNo}</a>${e.refundNo ? html`<br><span class="muted">refund ${e.refundNo}</span>` : ''}`;
  }
  if (e.settlementId !== null) return html`<a href="${settlementHref(area, e.settlementId)}">${e.settlementId}</a>`;
  return html`—`;
}

/**
 * An account as a person reads it: `merchant:<id>:pending` is "Toko Kopi · pending", the account
 * itself below it; without a name for its id, the account alone.
 */
function accountCell(account: string, names: ReadonlyMap<string, string> | undefined): Html {
  const m = /^(merchant|provider):([^:]+)(?::(.+))?$/.exec(account);
  const name = m ? names?.get(m[2] as string) : undefined;
  if (name === undefined) return html`<code>${account}</code>`;
  return html`<span class="account-name">${name}${m?.[3] ? ` · ${m[3]}` : ''}</span><br><code class="muted">${account}</code>`;
}

/**
 * Ledger entries, one row per line: each entry's debits equal its credits. `names` (merchants' and
 * providers' names by id) names the accounts.
 */
export function ledgerTable(
  entries: LedgerEntry[],
  area: BookArea,
  emptyText = 'No ledger entry.',
  names?: ReadonlyMap<string, string>,
): Html {
  if (entries.length === 0) return empty(emptyText);
  const side = (v: bigint) => (v === 0n ? '' : sen(v));
  return html`<div class="table-wrap"><table id="ledger-entries" class="ledger stack">
<thead><tr><th>Time</th><th class="hide-narrow">Entry</th><th>Kind</th><th>Reference</th><th>Account</th><th class="num">Debit</th><th class="num">Credit</th></tr></thead>
${entries.map((e) => {
  const lines = linesOf(e);
  const n = Math.max(1, lines.length);
  const [first, ...rest] = lines;
  const line = (l: LedgerLine | undefined) =>
    l
      ? html`<td data-label="Account">${accountCell(l.account, names)}</td><td data-label="Debit" class="num">${side(l.debitSen)}</td><td data-label="Credit" class="num">${side(l.creditSen)}</td>`
      : html`<td data-label="Account"></td><td data-label="Debit"></td><td data-label="Credit"></td>`;
  return html`<tbody class="entry" data-entry="${e.id}"><tr>
<td data-label="Time" rowspan="${n}">${jakartaTime(e.at)}</td><td data-label="Entry" rowspan="${n}" class="hide-narrow">${e.id}</td>
<td data-label="Kind" rowspan="${n}">${badge(`k-${e.kind}`, kindName(e.kind))}</td><td data-label="Reference" rowspan="${n}">${entryReference(e, area)}</td>
${line(first)}</tr>${rest.map((l) => html`<tr>${line(l)}</tr>`)}</tbody>`;
})}
</table></div>`;
}

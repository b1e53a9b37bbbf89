import { money } from '../books/ledger-service.ts';
import type { MerchantRecord } from '../merchants/merchant-service.ts';
import type { PayoutService } from '../payouts/payout-service.ts';
import { jakartaTime, prettyJson, rupiah } from '../web/format.ts';
import { type Html, html } from '../web/html.ts';
import { type BookArea, payoutHref, settlementHref } from './book-views.ts';
import { badge, empty } from './views.ts';

// Payouts through the payout bank (docs/payouts.md) as the console and the portal show them:
// amounts are integer sen in the records, Rupiah here; times WIB.

/** A payout and one of its exchanges with the bank, as the payout service gives them. */
export type PayoutRecord = Awaited<ReturnType<PayoutService['list']>>[number];
export type PayoutExchange = Awaited<ReturnType<PayoutService['show']>>['exchanges'][number];
export type PayoutState = PayoutRecord['state'];
export type PayoutKind = PayoutRecord['kind'];

export const PAYOUT_STATES: ReadonlyArray<[PayoutState, string]> = [
  ['awaiting_approval', 'awaiting approval'],
  ['sending', 'sending'],
  ['pending', 'pending at the bank'],
  ['paid', 'paid'],
  ['failed', 'failed'],
  ['rejected', 'rejected'],
];
export const PAYOUT_KINDS: ReadonlyArray<[PayoutKind, string]> = [
  ['settlement', 'settlement'],
  ['disbursement', 'disbursement'],
];

const STATE_NAMES = new Map<string, string>(PAYOUT_STATES);

/** The SNAP services of the payout bank (docs/payouts.md#the-exchanges). */
const SERVICES: Record<PayoutExchange['service'], string> = {
  '15': 'internal account inquiry',
  '16': 'external account inquiry',
  '17': 'intrabank transfer',
  '18': 'interbank transfer',
  '36': 'transfer status',
};

/** Sen as Rupiah. */
const sen = (value: bigint) => rupiah(money(value));

export const payoutStateBadge = (state: PayoutState) => badge(state, STATE_NAMES.get(state) ?? state);

/** What a payout pays: its settlement, or a disbursement's reference. */
function payoutFor(p: PayoutRecord, area: BookArea, links: boolean): Html {
  if (p.settlementId !== null) {
    return links
      ? html`settlement <a href="${settlementHref(area, p.settlementId)}">${p.settlementId}</a>`
      : html`settlement ${p.settlementId}`;
  }
  return p.referenceNo === null ? html`—` : html`reference ${p.referenceNo}`;
}

const beneficiaryText = (b: PayoutRecord['beneficiary']) => `${b.accountNo} at bank ${b.bankCode}, ${b.name}`;

export interface PayoutTableOptions {
  area: BookArea;
  /** Merchants' names by id: the merchant column (operators). */
  names?: ReadonlyMap<string, string>;
  /** Whether settlements are linked (a key that may read them; the portal's own). */
  links: boolean;
}

/**
 * Payouts, newest first; one awaiting approval is marked (its row, and its state's badge). The
 * operator's rows link to the payout's page; the portal's carry the payout's id as their anchor.
 */
export function payoutTable(rows: readonly PayoutRecord[], o: PayoutTableOptions): Html {
  if (rows.length === 0) return empty('No payout here.');
  return html`<div class="table-wrap"><table id="payouts" class="stack">
<thead><tr><th>Created</th><th>Payout</th>${o.names ? html`<th>Merchant</th>` : ''}<th>For</th><th class="num">Amount</th><th>State</th><th class="hide-narrow">To account</th></tr></thead>
<tbody>${rows.map(
    (
      p,
    ) => html`<tr${o.area !== 'operator' ? html` id="${p.id}"` : ''} data-payout="${p.id}" data-state="${p.state}"${p.state === 'awaiting_approval' ? html` class="awaiting"` : ''}>
<td data-label="Created">${jakartaTime(p.createdAt)}</td>
<td data-label="Payout" class="ids">${o.area === 'operator' ? html`<a href="${payoutHref('operator', p.id)}">${p.id}</a>` : html`<code>${p.id}</code>`}<br><span class="muted kind">${p.kind}</span></td>
${o.names ? html`<td data-label="Merchant">${o.names.get(p.merchantId) ?? p.merchantId}</td>` : ''}
<td data-label="For" class="ids">${payoutFor(p, o.area, o.links)}</td>
<td data-label="Amount" class="num amount">${sen(p.amountSen)}</td>
<td data-label="State" class="status">${payoutStateBadge(p.state)}${
      o.area !== 'operator' && p.bankReference
        ? html`<br><span class="muted">bank reference ${p.bankReference}</span>`
        : ''
    }${o.area !== 'operator' && p.state === 'failed' && p.error ? html`<br><span class="muted">${p.error}</span>` : ''}</td>
<td data-label="To account" class="hide-narrow">${beneficiaryText(p.beneficiary)}</td></tr>`,
  )}</tbody></table></div>`;
}

/** Who asked for or approved a payout: a key's name and id (`(you)` for the key signed in), or what else. */
export type KeyNamer = (keyId: string | null) => Html | string;

/** Every field of a payout (operators). */
export function payoutSummary(
  p: PayoutRecord,
  o: { merchant: { id: string; name: string }; links: boolean; keyName: KeyNamer },
): Html {
  return html`<dl class="kv" id="payout-summary">
<dt>State</dt><dd id="payout-state">${payoutStateBadge(p.state)}</dd>
<dt>Kind</dt><dd>${p.kind}</dd>
<dt>Merchant</dt><dd>${o.links ? html`<a href="/console/merchants/${encodeURIComponent(o.merchant.id)}">${o.merchant.name}</a>` : o.merchant.name}</dd>
<dt>For</dt><dd id="payout-for">${payoutFor(p, 'operator', o.links)}</dd>
<dt>Amount</dt><dd><strong id="payout-amount">${sen(p.amountSen)}</strong></dd>
<dt>Fee</dt><dd>${sen(p.feeSen)}</dd>
<dt>To account</dt><dd id="payout-beneficiary">${p.beneficiary.accountNo} at bank ${p.beneficiary.bankCode}<br>${p.beneficiary.name} <span class="muted">(the name the bank answered)</span></dd>
<dt>Transfer</dt><dd>service ${p.service} (${SERVICES[p.service]}) · partnerReferenceNo <code id="payout-partner-reference">${p.partnerReferenceNo}</code></dd>
<dt>Bank reference</dt><dd id="payout-bank-reference">${p.bankReference ?? '—'}</dd>
<dt>Error</dt><dd id="payout-error">${p.error ?? '—'}</dd>
<dt>Asked for by</dt><dd id="payout-requested-by">${o.keyName(p.requestedBy)}</dd>
<dt>Approved by</dt><dd id="payout-approved-by">${o.keyName(p.approvedBy)}</dd>
<dt>Next status query</dt><dd>${jakartaTime(p.nextCheckAt)} <span class="muted">(${p.checks} asked so far)</span></dd>
<dt>Created</dt><dd>${jakartaTime(p.createdAt)}</dd>
<dt>Updated</dt><dd>${jakartaTime(p.updatedAt)}</dd>
</dl>`;
}

const json = (value: unknown) => (value === null ? 'none' : prettyJson(JSON.stringify(value)));

/** Every exchange with the bank, in order: the bodies only, never a header, token or signature. */
export function exchangeList(exchanges: readonly PayoutExchange[]): Html {
  if (exchanges.length === 0) return empty('No exchange with the bank yet.');
  return html`<ol class="plain" id="exchanges">${exchanges.map(
    (e, i) => html`<li class="card exchange" id="exchange-${i + 1}" data-service="${e.service}">
<h3>${e.service} · ${SERVICES[e.service]}</h3>
<dl class="kv"><dt>At</dt><dd>${jakartaTime(e.at)}</dd>
<dt>HTTP status</dt><dd class="exchange-status">${e.status ?? 'no answer'}</dd>
${e.error === undefined ? '' : html`<dt>Error</dt><dd class="exchange-error">${e.error}</dd>`}</dl>
<h4>Request</h4><pre class="exchange-request">${json(e.request)}</pre>
<h4>Response</h4><pre class="exchange-response">${json(e.response)}</pre></li>`,
  )}</ol>`;
}

/** A merchant's bank account, read-only, with what the payout bank answered about it. */
export function payoutAccountCard(m: Pick<MerchantRecord, 'payoutAccount' | 'payoutSchedule'>, none: string): Html {
  const a = m.payoutAccount;
  const schedule =
    (m.payoutSchedule ?? 'manual') === 'auto'
      ? 'automatic: each settlement is paid out as soon as it is made'
      : 'manual: a settlement is paid out when your gateway operator says so';
  return html`<section class="card" aria-labelledby="h-payout-account" id="payout-account"><h2 id="h-payout-account">Bank account</h2>
${
  a
    ? html`<dl class="kv">
<dt>Bank code</dt><dd id="payout-account-bank">${a.bankCode}</dd>
<dt>Account number</dt><dd id="payout-account-no">${a.accountNo}</dd>
<dt>Account name</dt><dd id="payout-account-name">${a.accountName}</dd>
<dt>Verified name</dt><dd id="payout-account-verified">${a.verifiedName} <span class="muted">(the payout bank’s answer, ${jakartaTime(a.verifiedAt)})</span></dd>
<dt>Payouts</dt><dd id="payout-schedule">${schedule}</dd>
</dl>`
    : html`<p id="payout-account-none">${none}</p>`
}</section>`;
}

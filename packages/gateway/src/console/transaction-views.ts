import { TRANSACTION_STATUS } from '@snapgate/snap';
import type { NotificationRecord, StoredAttempt } from '../delivery/notification-operations.ts';
import { methodOf, methodOfTxn } from '../methods/index.ts';
import type { StatusHistoryEntry, TransactionRecord } from '../payments/transaction-reads.ts';
import { jakartaTime, prettyJson, rupiah, statusName } from '../web/format.ts';
import { type Html, html } from '../web/html.ts';
import { badge, csrfField, empty, feeAndNet, statusBadge } from './views.ts';

// One transaction's page, alike in the console and the portal: its summary, QR, status history,
// and every notification with its attempts. The notifications and the outcome of a replay are the
// page's live parts (`data-live-part`): the same markup is served alone at `<page>/live`, which
// the console script polls while a delivery is pending and swaps in (script.ts).

/** A notification with every attempt at it, oldest first. */
export interface Delivery {
  notification: NotificationRecord;
  attempts: StoredAttempt[];
}

/** A replay the page waits on: the notification, and how many attempts it had when replayed. */
export interface Watch {
  id: string;
  after: number;
}

/** The watched replay named by a page's query (`watch`, `after`), when both are well formed. */
export function watchOf(query: unknown): Watch | undefined {
  const { watch, after } = (query ?? {}) as Record<string, unknown>;
  if (typeof watch !== 'string' || !/^\d{1,30}$/.test(watch)) return undefined;
  if (typeof after !== 'string' || !/^\d{1,6}$/.test(after)) return undefined;
  return { id: watch, after: Number(after) };
}

/** Where a page waiting on a replay lives: the transaction's page, with what it watches. */
export function watchQuery(n: NotificationRecord): string {
  return new URLSearchParams({ watch: n.id, after: String(n.attemptCount) }).toString();
}

/** A retry further away than this is not waited on by polling: a reload shows it later. */
const SOON_MS = 60_000;

/**
 * Whether a delivery of the transaction is under way (due now or soon, or being sent): the page
 * then refreshes its live parts by itself.
 */
export function isLive(deliveries: readonly Delivery[], now: number): boolean {
  return deliveries.some(({ notification: n }) => {
    if (n.state === 'delivering') return true;
    if (n.state !== 'pending' && n.state !== 'retrying') return false;
    return n.nextAttemptAt === null || n.nextAttemptAt - now <= SOON_MS;
  });
}

const PROVIDER_ID = /\b(acquirer|bank|provider) ([0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12})\b/gi;
const BANK_CODE = /\bbank (\d{3})\b/g;
/** Who applied a payment from a provider's report (`by admin key ops (`): the operator's business. */
const APPLIED_BY = / by admin key [\w.-]+ \(/;

/**
 * A status change's reason as its reader should see it: an operator gets the provider's name
 * (`notified by acquirer Bank Sandbox QRIS`) instead of its id, a merchant `the acquirer` or
 * `the bank` (which provider the gateway uses is the operator's business).
 */
export function reasonText(
  reason: string,
  reader:
    | { kind: 'operator'; names: ReadonlyMap<string, string>; banks: ReadonlyMap<string, string> }
    | { kind: 'merchant' },
): string {
  if (reader.kind === 'merchant') {
    return reason
      .replace(PROVIDER_ID, 'the $1')
      .replace(BANK_CODE, 'the bank')
      .replace(APPLIED_BY, ' by the operator (');
  }
  return reason
    .replace(PROVIDER_ID, (whole, word: string, id: string) => {
      const name = reader.names.get(id);
      return name === undefined ? whole : `${word} ${name}`;
    })
    .replace(BANK_CODE, (whole, code: string) => {
      const name = reader.banks.get(code);
      return name === undefined ? whole : `bank ${name} (${code})`;
    });
}

/** A status as a badge, with its description only when it says more than the status's name (`Expired`). */
function statusWithDesc(status: string, desc: string | null | undefined): Html {
  const said = desc && desc !== (TRANSACTION_STATUS as Record<string, string>)[status];
  return html`${statusBadge(status)}${said ? html` <span class="muted">${desc}</span>` : ''}`;
}

export interface DetailOptions {
  /** `/console` or `/console/portal`. */
  base: string;
  csrf: string;
  canReplay: boolean;
  merchantName?: string;
  /** Sandbox actions (operators with the operate scope, sandbox mode). */
  sandbox?: Html;
  /** Refund and cancel (operators with the operate scope), where the status allows them. */
  actions?: Html;
  /** The transaction's ledger entries (operators). */
  ledger?: Html;
  /** A status change's reason in the reader's words (reasonText). */
  reason: (reason: string) => string;
  /** The replay this page waits on, if any. */
  watch?: Watch | undefined;
  now: number;
}

export function transactionDetail(
  t: TransactionRecord,
  history: StatusHistoryEntry[],
  deliveries: Delivery[],
  o: DetailOptions,
): Html {
  const payer = t.details.payer ?? t.details.additionalInfo;
  const net = feeAndNet(t);
  return html`
<h1>Transaction ${t.referenceNo}</h1>
${replayOutcome(deliveries, o.watch)}
<div class="grid">
<section class="card" aria-labelledby="h-summary"><h2 id="h-summary">Summary</h2>
<dl class="kv">
<dt>Status</dt><dd id="txn-status">${statusWithDesc(t.status, t.statusDesc)}</dd>
<dt>Kind</dt><dd>${methodOf(t.kind).label.long}</dd>
${o.merchantName !== undefined ? html`<dt>Merchant</dt><dd><a href="/console/merchants/${encodeURIComponent(t.merchantId)}">${o.merchantName}</a></dd>` : ''}
<dt>Partner reference</dt><dd>${t.partnerReferenceNo}</dd>
<dt>Amount</dt><dd>${t.amount === null ? 'open amount' : rupiah(t.amount)}</dd>
<dt>Paid</dt><dd>${rupiah(t.paidAmount)}${t.paidAt ? html` <span class="muted">at ${jakartaTime(t.paidAt)}</span>` : ''}</dd>
<dt>Refunded</dt><dd id="txn-refunded">${rupiah(t.refundedAmount)}</dd>
${net ? html`<dt>Fee</dt><dd id="txn-fee">${rupiah(net.fee)}</dd><dt>Net</dt><dd id="txn-net">${rupiah(net.net)} <span class="muted">paid, less the fee and refunds</span></dd>` : ''}
${methodOfTxn(t)
  .facts(t)
  .filter(([, value]) => value)
  .map(([label, value]) => html`<dt>${label}</dt><dd>${value}</dd>`)}
<dt>Created</dt><dd>${jakartaTime(t.createdAt)}</dd>
<dt>Expires</dt><dd>${jakartaTime(t.expiresAt)}</dd>
</dl>
${payer !== undefined ? html`<h3>Details</h3><pre>${JSON.stringify(payer, null, 2)}</pre>` : ''}
</section>
${t.kind === 'qris' && t.checkoutId ? html`<section class="card qr" aria-labelledby="h-qr"><h2 id="h-qr">QR</h2><img src="/pay/${encodeURIComponent(t.checkoutId)}/qr.png" alt="QRIS code of ${t.referenceNo}" width="220" height="220"></section>` : ''}
<section class="card" aria-labelledby="h-history"><h2 id="h-history">Status history</h2>
${
  history.length === 0
    ? empty('No status change yet.')
    : html`<ol class="timeline">${history.map(
        (h) => html`<li>${statusWithDesc(h.status, h.statusDesc)}<br>
<span class="muted">${jakartaTime(h.changedAt)}${h.reason ? html` · ${o.reason(h.reason)}` : ''}</span></li>`,
      )}</ol>`
}
</section>
</div>
${o.actions ?? ''}
${o.ledger ?? ''}
${o.sandbox ?? ''}
${notificationSection(t, deliveries, o)}`;
}

/** The live parts alone, as `<page>/live` serves them: what the script swaps into the page. */
export function liveParts(t: TransactionRecord, deliveries: Delivery[], o: DetailOptions): Html {
  return html`${replayOutcome(deliveries, o.watch)}${notificationSection(t, deliveries, o)}`;
}

/** The address of a transaction page's live parts, with the replay it waits on. */
const liveUrl = (t: TransactionRecord, o: DetailOptions) =>
  `${o.base}/transactions/${encodeURIComponent(t.referenceNo)}/live${o.watch ? `?watch=${o.watch.id}&after=${o.watch.after}` : ''}`;

function notificationSection(t: TransactionRecord, deliveries: Delivery[], o: DetailOptions): Html {
  const live = isLive(deliveries, o.now);
  return html`<section id="notifications" data-live-part aria-labelledby="h-notifications" data-live-url="${liveUrl(t, o)}" data-live-active="${live ? 'true' : 'false'}"><h2 id="h-notifications">Notifications</h2>
${
  deliveries.length === 0
    ? empty('No notification was sent for this transaction.')
    : deliveries.map(({ notification, attempts }) => notificationCard(notification, attempts, o))
}
${live ? html`<p class="muted" id="live-note">A delivery is under way: with JavaScript this part updates by itself; without, reload the page.</p>` : ''}
</section>`;
}

/**
 * What became of the replay the page waits on, said at the top of the page (a live region): queued
 * and waiting, delivered, or failed with the answer's HTTP status and error. Empty when the page
 * waits on none.
 */
function replayOutcome(deliveries: Delivery[], watch: Watch | undefined): Html {
  const region = (cls: string, text: Html | string) =>
    html`<div id="live-outcome" data-live-part role="status" aria-live="polite"${cls ? html` class="${cls}"` : ''}>${text}</div>`;
  if (!watch) return region('', '');
  const d = deliveries.find((x) => x.notification.id === watch.id);
  if (!d) return region('', '');
  const n = d.notification;
  const a = d.attempts.find((x) => x.attemptNo > watch.after);
  if (!a) {
    if (n.state === 'pending' || n.state === 'delivering' || n.state === 'retrying') {
      return region('flash', `Notification ${n.id} is queued again: waiting for its delivery attempt…`);
    }
    return region('flash error', `Notification ${n.id} was not sent again: it is ${n.state}.`);
  }
  const answer = a.responseStatus === null ? 'got no answer' : `answered HTTP ${a.responseStatus}`;
  const when = `at ${jakartaTime(a.startedAt)}, in ${a.durationMs} ms`;
  if (a.outcome === 'acknowledged') {
    return region(
      'flash ok',
      `Notification ${n.id} was delivered: attempt ${a.attemptNo} ${answer} (acknowledged) ${when}.`,
    );
  }
  const next =
    n.state === 'dead'
      ? 'No attempt is left: it is dead. Replay it once the merchant’s endpoint answers.'
      : n.state === 'retrying' || n.state === 'pending'
        ? `The next attempt is due ${jakartaTime(n.nextAttemptAt)}.`
        : n.state === 'delivered'
          ? 'A later attempt delivered it.'
          : `It is ${n.state}.`;
  // The error of a plain refusal only repeats the status; the answer's first words say more.
  const error = a.error && !/^not acknowledged: HTTP \d+$/.test(a.error) ? ` — ${a.error}` : '';
  const said = a.responseBody ? `; it began “${a.responseBody.slice(0, 120)}”` : '';
  const refused = a.responseStatus === null ? '' : ', not acknowledged';
  return region(
    'flash error',
    `Notification ${n.id} failed: attempt ${a.attemptNo} ${answer}${refused}${error}${said}, ${when}. ${next}`,
  );
}

function notificationCard(n: NotificationRecord, attempts: StoredAttempt[], o: DetailOptions): Html {
  // Every attempt sent these same stored bytes.
  const body = prettyJson(n.body);
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
    ? html`<form method="post" action="${o.base}/notifications/${encodeURIComponent(n.id)}/replay" class="actions">${csrfField(o.csrf)}<button type="submit" id="replay-${n.id}">Replay notification ${n.id}</button></form>`
    : ''
}
<details id="n-${n.id}-body"><summary>Request body</summary><pre>${body}</pre></details>
${
  attempts.length === 0
    ? html`<p class="muted">No attempt yet.</p>`
    : attempts.map(
        (
          a,
        ) => html`<details class="attempt" id="n-${n.id}-a${a.attemptNo}"><summary>Attempt ${a.attemptNo}: ${badge(a.outcome, a.outcome)} HTTP ${a.responseStatus ?? '—'} · ${a.durationMs} ms · ${jakartaTime(a.startedAt)}</summary>
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

import type { NotificationRecord, StoredAttempt } from '../delivery/notification-operations.ts';
import type { StatusHistoryEntry, TransactionRecord } from '../payments/transaction-reads.ts';
import { jakartaTime, rupiah, statusName } from './format.ts';
import { type Html, html } from './html.ts';
import { badge, csrfField, empty, statusBadge } from './views.ts';

// One transaction's page, alike in the console and the portal: its summary, QR, status history,
// and every notification with its attempts.

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

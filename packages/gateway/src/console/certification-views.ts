import type { CertifiedTransaction } from '../certification/certify.ts';
import type { ConformanceReport, RecordedRequest, RecordedResponse, ScenarioResult } from '../conformance/report.ts';
import { methodOf } from '../methods/index.ts';
import { jakartaTime } from '../web/format.ts';
import { type Html, html } from '../web/html.ts';
import { merchantHref } from './merchant-views.ts';
import { badge, csrfField, empty, statusBadge } from './views.ts';

// A merchant's webhook certification and SNAP conformance runs: the list with the forms that run
// them, and one run's report (the same report shape for both: conformance/report.ts).

export const certificationsHref = (merchantId: string) => `${merchantHref(merchantId)}/certifications`;
export const certificationHref = (id: string) => `/console/certifications/${encodeURIComponent(id)}`;
export const conformanceHref = (merchantId: string, run: string) =>
  `${merchantHref(merchantId)}/conformance/${encodeURIComponent(run)}`;

/** One run in a list: where its report is, when it started, its counts. */
export interface RunSummary {
  href: string;
  startedAt: number;
  total: number;
  passed: number;
  failed: number;
  ok: boolean;
}

export const summaryOf = (href: string, r: ConformanceReport): RunSummary => ({
  href,
  startedAt: Date.parse(r.startedAt),
  total: r.total,
  passed: r.passed,
  failed: r.failed,
  ok: r.ok,
});

const verdict = (ok: boolean) => (ok ? badge('ok', 'all passed') : badge('problem', 'failed'));

function runsTable(rows: RunSummary[], none: string): Html {
  if (rows.length === 0) return empty(none);
  return html`<div class="table-wrap"><table class="stack">
<thead><tr><th>Started</th><th class="num">Scenarios</th><th class="num">Passed</th><th class="num">Failed</th><th>Result</th></tr></thead>
<tbody>${rows.map(
    (r) => html`<tr>
<td data-label="Started"><a href="${r.href}">${jakartaTime(r.startedAt)}</a></td>
<td data-label="Scenarios" class="num">${r.total}</td>
<td data-label="Passed" class="num">${r.passed}</td>
<td data-label="Failed" class="num">${r.failed}</td>
<td data-label="Result" class="status">${verdict(r.ok)}</td></tr>`,
  )}</tbody></table></div>`;
}

/** The certification form's fields as typed (a refused form is shown again with them). */
export interface CertifyTyped {
  'qris.0'?: string | undefined;
  'qris.1'?: string | undefined;
  va?: string | undefined;
  create?: string | undefined;
}

/** The form labels of the certification fields, by the schema's path (`qris.0`). */
export const CERTIFY_LABELS: Record<string, string> = {
  qris: 'QRIS to pay and QRIS to fail (qris)',
  'qris.0': 'QRIS to pay (qris.0)',
  'qris.1': 'QRIS to fail (qris.1)',
  va: 'VA to pay (va)',
  create: 'Create the transactions (create)',
};

function certifyForm(action: string, csrf: string, typed: CertifyTyped, problems: Html | undefined): Html {
  const checked = typed.create !== undefined && typed.create !== '';
  return html`<form method="post" action="${action}" id="certify-form">${csrfField(csrf)}
${problems ?? ''}
<p class="muted">Leave the references empty to use the merchant’s newest unpaid transactions: two QRIS and one VA it created from its own system, so that it knows the orders.</p>
<div class="form-grid">
<label>QRIS to pay (referenceNo)<input name="qris.0" class="wide" maxlength="200" value="${typed['qris.0'] ?? ''}" autocomplete="off"></label>
<label>QRIS to fail (referenceNo)<input name="qris.1" class="wide" maxlength="200" value="${typed['qris.1'] ?? ''}" autocomplete="off"></label>
<label>VA to pay (referenceNo or VA number)<input name="va" class="wide" maxlength="200" value="${typed.va ?? ''}" autocomplete="off"></label>
</div>
<p><label class="check"><input type="checkbox" name="create"${checked ? html` checked` : ''}> Create the transactions: two QRIS and a VA of Rp 10.000,00 made by the certification itself (the merchant does not know their orders)</label></p>
<button type="submit">Run certification</button></form>`;
}

export interface CertificationsPageOptions {
  merchant: { id: string; name: string; status: string };
  /** The merchant's callback URLs (undefined: none set). */
  qrisCallbackUrl: string | undefined;
  vaCallbackUrl: string | undefined;
  sandbox: boolean;
  /** The operator's key has the scope the runs need. */
  canRun: boolean;
  /** Why conformance cannot run for this merchant (disabled, RSA-only tokens), when it cannot. */
  conformanceBlocked: string | undefined;
  csrf: string;
  certifications: RunSummary[];
  conformance: RunSummary[];
  /** A refused certification form, shown again as typed with its problems. */
  refused?: { typed: CertifyTyped; problems: Html };
}

/** Why nothing runs here, when nothing can: production mode, or a key of a lesser scope. */
function cannotRun(o: CertificationsPageOptions, what: string): Html | undefined {
  if (!o.sandbox)
    return html`<p class="muted" id="${what}-not-here">Runs only in sandbox mode: this gateway runs in production mode, where these runs would move real transactions.</p>`;
  if (!o.canRun)
    return html`<p class="muted" id="${what}-not-here">Running one needs an admin key; past runs are listed below.</p>`;
  return undefined;
}

export function certificationsPage(o: CertificationsPageOptions): Html {
  const m = o.merchant;
  const base = certificationsHref(m.id);
  return html`<h1>Certification of ${m.name}</h1>
<p><a href="${merchantHref(m.id)}">Back to the merchant</a> · ${badge(m.status, m.status)}</p>
<section class="card" aria-labelledby="h-certify"><h2 id="h-certify">Webhook certification</h2>
<p>Checks the merchant’s callback endpoint with real, signed notifications about its own sandbox transactions: it pays one unpaid QRIS (03, then 00), fails another (06) and pays an unpaid VA (00), then sends variants the endpoint must acknowledge (a repeat, unknown fields, PHP escapes, a charset) and forgeries it must refuse (a wrong signature, another body’s signature, another merchant’s secret, a 10-minute-old timestamp, another X-PARTNER-ID, no signature).</p>
<dl class="kv"><dt>QRIS callback URL</dt><dd>${o.qrisCallbackUrl ?? html`<span class="muted">none: set a callback URL on the merchant’s page first</span>`}</dd>
<dt>VA callback URL</dt><dd>${o.vaCallbackUrl ?? html`<span class="muted">none: set a callback URL on the merchant’s page first</span>`}</dd></dl>
${cannotRun(o, 'certify') ?? certifyForm(base, o.csrf, o.refused?.typed ?? {}, o.refused?.problems)}
<h3>Runs, newest first</h3>
${runsTable(o.certifications, 'No certification run yet.')}
</section>
<section class="card" aria-labelledby="h-conformance"><h2 id="h-conformance">SNAP conformance</h2>
<p>Checks this gateway’s SNAP API as this merchant’s client would call it, with its client key and secret: a token, then QRIS generate, query, cancel and refund, and VA create, inquiry, status, update and delete, each with positive scenarios and negative ones (missing fields, wrong signatures, stale timestamps, repeated X-EXTERNAL-IDs). It creates sandbox transactions of its own for the merchant.</p>
${
  cannotRun(o, 'conformance') ??
  (o.conformanceBlocked
    ? html`<p class="muted" id="conformance-not-here">${o.conformanceBlocked}</p>`
    : html`<form method="post" action="${merchantHref(m.id)}/conformance" id="conformance-form">${csrfField(o.csrf)}<button type="submit">Run conformance</button></form>`)
}
<h3>Runs, newest first</h3>
${runsTable(o.conformance, 'No conformance run yet.')}
</section>`;
}

/** A first line, the headers (when recorded), a blank line and the body (when there is one). */
function message(first: string, headers: Record<string, string>, body: string): string {
  const head = [first, ...Object.entries(headers).map(([k, v]) => `${k}: ${v}`)].join('\n');
  return body === '' ? head : `${head}\n\n${body}`;
}
const requestText = (r: RecordedRequest) => message(`${r.method} ${r.url}`, r.headers, r.body);
const responseText = (r: RecordedResponse) =>
  r.status === 0 ? 'no answer' : message(`HTTP ${r.status}`, r.headers, r.body);

function exchange(r: ScenarioResult): Html {
  if (!r.request && !r.response) return html`<span class="muted">nothing sent</span>`;
  // The bytes as sent and received (PHP escapes and charsets matter): not re-indented.
  return html`<details><summary>Request and response</summary>
${r.request ? html`<h4>Request</h4><pre>${requestText(r.request)}</pre>` : ''}
${r.response ? html`<h4>Response</h4><pre class="response-body">${responseText(r.response)}</pre>` : html`<h4>Response</h4><p class="muted">none</p>`}
</details>`;
}

/** One scenario a `tbody` (a card on a phone): its row, then its exchange across the table. */
function scenarioTable(rows: ScenarioResult[], id: string): Html {
  return html`<div class="table-wrap"><table class="stack" id="${id}">
<thead><tr><th>Result</th><th>Group</th><th>Scenario</th><th>Kind</th><th>Reason</th><th class="num">Duration</th></tr></thead>
${rows.map(
  (r) => html`<tbody class="entry" id="scenario-${r.id}"><tr>
<td data-label="Result" class="status">${r.passed ? badge('ok', 'passed') : badge('problem', 'failed')}</td>
<td data-label="Group">${r.group}</td>
<td data-label="Scenario">${r.title} <span class="muted">${r.id}</span></td>
<td data-label="Kind">${r.kind === 'positive' ? 'positive (must be accepted)' : 'negative (must be refused)'}</td>
<td data-label="Reason">${r.passed ? r.reason : html`<strong>${r.reason}</strong>`}</td>
<td data-label="Duration" class="num">${r.durationMs} ms</td></tr>
<tr><td data-label="Exchange" colspan="6">${exchange(r)}</td></tr></tbody>`,
)}</table></div>`;
}

function transactionsTable(rows: CertifiedTransaction[]): Html {
  const role = { 'qris-paid': 'QRIS paid', 'qris-failed': 'QRIS failed', 'va-paid': 'VA paid' } as const;
  return html`<h2>Transactions certified with</h2><div class="table-wrap"><table class="stack">
<thead><tr><th>Role</th><th>Reference</th><th>Partner reference</th><th>Kind</th><th>Status</th></tr></thead>
<tbody>${rows.map(
    (t) => html`<tr>
<td data-label="Role">${role[t.role]}</td>
<td data-label="Reference"><a href="/console/transactions/${encodeURIComponent(t.referenceNo)}">${t.referenceNo}</a></td>
<td data-label="Partner reference">${t.partnerReferenceNo}</td>
<td data-label="Kind">${methodOf(t.kind).label.short}</td>
<td data-label="Status" class="status">${statusBadge(t.status)}</td></tr>`,
  )}</tbody></table></div>`;
}

export interface ReportPageOptions {
  title: string;
  merchant: { id: string; name: string };
  report: ConformanceReport;
  /** A certification's transactions. */
  transactions?: CertifiedTransaction[];
}

/** One run: its summary, then every scenario, the failed ones first, each with its exchange. */
export function reportPage(o: ReportPageOptions): Html {
  const r = o.report;
  const failed = r.results.filter((s) => !s.passed);
  const passed = r.results.filter((s) => s.passed);
  return html`<h1>${o.title}</h1>
<section class="card" aria-labelledby="h-summary"><h2 id="h-summary">Summary</h2>
<dl class="kv">
<dt>Result</dt><dd id="run-result">${verdict(r.ok)} ${r.passed} of ${r.total} scenarios passed, ${r.failed} failed</dd>
<dt>Merchant</dt><dd><a href="${merchantHref(o.merchant.id)}">${o.merchant.name}</a></dd>
<dt>Target</dt><dd>${r.target}</dd>
<dt>Started</dt><dd>${jakartaTime(Date.parse(r.startedAt))}</dd>
<dt>Duration</dt><dd>${r.durationMs < 1000 ? `${r.durationMs} ms` : `${(r.durationMs / 1000).toFixed(1)} s`}</dd>
</dl>
<p><a href="${certificationsHref(o.merchant.id)}">All runs of this merchant</a></p>
</section>
${o.transactions && o.transactions.length > 0 ? transactionsTable(o.transactions) : ''}
<section aria-labelledby="h-failed"><h2 id="h-failed">Failed: ${failed.length}</h2>
${failed.length === 0 ? empty('Every scenario passed.') : scenarioTable(failed, 'failed-scenarios')}
</section>
<section aria-labelledby="h-passed"><h2 id="h-passed">Passed: ${passed.length}</h2>
${passed.length === 0 ? empty('No scenario passed.') : scenarioTable(passed, 'passed-scenarios')}
</section>`;
}

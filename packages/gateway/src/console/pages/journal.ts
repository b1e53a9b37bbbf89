import type { FastifyInstance } from 'fastify';
import { ledgerQuery } from '../../http/routes/admin-books.ts';
import { jakartaIso, parseJakartaDate } from '../../web/format.ts';
import { html } from '../../web/html.ts';
import { booksTabs, ledgerTable } from '../book-views.ts';
import { issuesOf, q } from '../kit.ts';
import { config, type OperatorPages } from '../operator.ts';
import { formProblems } from '../views.ts';

const KINDS = ledgerQuery.shape.kind.unwrap().options;
const DAY_MS = 86_400_000;
/** The admin API's query names as the form names them. */
const FILTER_NAMES: Record<string, string> = {
  merchantId: 'merchant',
  referenceNo: 'reference',
  since: 'from',
  until: 'to',
};

/**
 * A day typed in a date input as the admin API reads times: the start of that Jakarta day (plus
 * `after`: "to" a day includes that whole day); a day that does not exist stays as typed, for the
 * schema to refuse.
 */
function dayOf(day: string, after = 0): string {
  const start = parseJakartaDate(day);
  return start === undefined ? day : jakartaIso(start + after);
}

/**
 * The journal (GET /admin/v1/ledger/entries in the browser): every ledger entry, newest first, by
 * merchant, kind, transaction reference and day, page by page. The filters are read with the admin
 * API's own schema; a filter it refuses is shown with its problem, the filters as typed.
 */
export function journalPages(op: FastifyInstance, pages: OperatorPages): void {
  const { ledger, merchants, providers } = pages.deps;

  op.get('/books/journal', { config }, async (request, reply) => {
    pages.need(request, 'GET', '/admin/v1/ledger/entries');
    const typed = {
      merchant: q(request.query, 'merchant', 64) ?? '',
      kind: q(request.query, 'kind', 20) ?? '',
      ref: q(request.query, 'ref', 64) ?? '',
      from: q(request.query, 'from', 20) ?? '',
      to: q(request.query, 'to', 20) ?? '',
    };
    const cursor = q(request.query, 'cursor', 512);
    const parsed = ledgerQuery.safeParse({
      ...(typed.merchant ? { merchantId: typed.merchant } : {}),
      ...(typed.kind ? { kind: typed.kind } : {}),
      ...(typed.ref ? { referenceNo: typed.ref } : {}),
      ...(typed.from ? { since: dayOf(typed.from) } : {}),
      ...(typed.to ? { until: dayOf(typed.to, DAY_MS) } : {}),
      ...(cursor ? { cursor } : {}),
    });
    const [all, banks] = await Promise.all([merchants.all(), providers.list({ limit: 500 })]);
    const names = new Map([...all, ...banks.items].map((x) => [x.id, x.name]));
    const form = html`<form class="filters card" method="get" action="/console/books/journal" role="search">
<label>Merchant<select name="merchant"><option value="">All</option>${all.map(
      (m) => html`<option value="${m.id}"${typed.merchant === m.id ? html` selected` : ''}>${m.name}</option>`,
    )}</select></label>
<label>Kind<select name="kind"><option value="">All</option>${KINDS.map(
      (k) => html`<option value="${k}"${typed.kind === k ? html` selected` : ''}>${k}</option>`,
    )}</select></label>
<label>Transaction reference<input name="ref" value="${typed.ref}" placeholder="referenceNo"></label>
<label>From<input type="date" name="from" value="${typed.from}"></label>
<label>To<input type="date" name="to" value="${typed.to}"></label>
<button type="submit">Filter</button> <a href="/console/books/journal">Clear</a>
</form>`;
    const frame = (body: ReturnType<typeof html>, status = 200) =>
      pages.page(
        request,
        reply,
        'Journal',
        'books',
        html`<h1>Books</h1>${booksTabs('journal')}
<h2>Journal</h2>
<p class="muted">Every ledger entry, newest first: a payment (the merchant's share and the fee), a refund, a settlement, a payout. Each entry's debits equal its credits; the journal is append-only.</p>
${form}${body}`,
        status,
      );
    if (!parsed.success) {
      const problems = issuesOf(parsed.error.issues, (field) => FILTER_NAMES[field] ?? field);
      return frame(formProblems('These filters cannot be used:', problems), 400);
    }
    const f = parsed.data;
    const page = await ledger.entries(
      pages.callerOf(request),
      {
        merchantId: f.merchantId,
        referenceNo: f.referenceNo,
        kind: f.kind,
        since: f.since === undefined ? undefined : Date.parse(f.since),
        until: f.until === undefined ? undefined : Date.parse(f.until),
      },
      { limit: f.limit, cursor: f.cursor },
    );
    const older = () => {
      const params = new URLSearchParams(Object.entries(typed).filter(([, v]) => v !== ''));
      params.set('cursor', page.nextCursor as string);
      return `/console/books/journal?${params}`;
    };
    return frame(
      html`${ledgerTable(page.items, 'operator', 'No ledger entry matches these filters.', names)}
${page.nextCursor ? html`<nav class="pager" aria-label="Pages"><a href="${older()}">Older →</a></nav>` : ''}`,
    );
  });
}

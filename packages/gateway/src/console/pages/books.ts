import type { FastifyInstance } from 'fastify';
import type { Verification } from '../../books/ledger-service.ts';
import { balanceTable, booksTabs } from '../book-views.ts';
import { type Html, html } from '../html.ts';
import { config, type OperatorPages } from '../operator.ts';
import { badge, empty } from '../views.ts';

/** Books: every merchant's balance, and the ledger's verification (docs/books.md). */
export function bookPages(op: FastifyInstance, pages: OperatorPages): void {
  const { ledger, merchants } = pages.deps;

  op.get('/books', { config }, async (request, reply) => {
    const caller = pages.callerOf(request);
    const all = await merchants.all();
    const rows = await Promise.all(
      all.map(async (m) => ({ merchant: m, balance: await ledger.balance(caller, m.id) })),
    );
    return pages.page(
      request,
      reply,
      'Balances',
      'books',
      html`<h1>Books</h1>${booksTabs('balances')}
<h2>Balances</h2>
<p class="muted">What each merchant is owed: <strong>pending</strong> (paid less fees, refunds and disbursements, in no settlement yet), <strong>settling</strong> (in open settlements), <strong>paid out</strong> to date, and the <strong>fees</strong> charged.</p>
${balanceTable(rows)}`,
    );
  });

  op.get<{ Querystring: { full?: string } }>('/books/verify', { config }, async (request, reply) => {
    const isFull = request.query.full === '1';
    const v = isFull ? await ledger.verifyFull() : await ledger.verify();
    return pages.page(
      request,
      reply,
      'Verify ledger',
      'books',
      html`<h1>Books</h1>${booksTabs('verify')}
<h2>Verify ledger</h2>
${
  isFull
    ? html`<p class="muted">The whole journal: every entry balances and names its provider; every paid transaction has exactly one payment entry, names it, and matches its amount and fee; no entry lacks its cause; each merchant's balance is the sum of its accounts' lines, and its pending + settling + paid out is its payments less fees, refunds and disbursements; transfers holds the disbursements on their way. <a href="/console/books/verify">Check what is new only</a>.</p>`
    : html`<p class="muted">What was written since the last clean check: each new entry balances, names its provider and has its cause; each new payment entry is its transaction's, with its amount and fee; every transaction paid since has its entry; each merchant touched has running totals equal to its entries. <a id="verify-full" href="/console/books/verify?full=1">Check the whole journal</a> (takes longer as the books grow).</p>`
}
${verification(v)}`,
    );
  });
}

function verification(v: Verification): Html {
  const where = (p: Verification['problems'][number]) =>
    p.referenceNo
      ? html`<a href="/console/transactions/${encodeURIComponent(p.referenceNo)}">${p.referenceNo}</a>`
      : (p.entryId ?? p.merchantId ?? '');
  return html`<section class="card" aria-labelledby="h-outcome"><h3 id="h-outcome">Outcome</h3>
<p id="verify-outcome">${v.ok ? badge('ok', 'balanced') : badge('problem', `${v.problems.length} problem${v.problems.length === 1 ? '' : 's'}`)} <span class="muted">${v.entries} entr${v.entries === 1 ? 'y' : 'ies'}${v.mode === 'incremental' ? `, ${v.read ?? 0} read since the last clean check` : ', all checked'}</span></p></section>
${
  v.problems.length === 0
    ? empty('No problem: the books balance.')
    : html`<div class="table-wrap"><table id="verify-problems" class="stack"><thead><tr><th>Problem</th><th>Where</th><th>What</th></tr></thead><tbody>${v.problems.map(
        (p) =>
          html`<tr><td data-label="Problem">${badge('problem', p.type)}</td><td data-label="Where">${where(p)}</td><td data-label="What">${p.message}</td></tr>`,
      )}</tbody></table></div>`
}`;
}

import type { FastifyInstance } from 'fastify';
import type { Verification, VerificationJob } from '../../books/ledger-service.ts';
import { notFound } from '../../domain-error.ts';
import { type Html, html } from '../../web/html.ts';
import { balanceTable, booksTabs } from '../book-views.ts';
import { config, type OperatorPages } from '../operator.ts';
import { badge, csrfField, empty } from '../views.ts';

/** The admin API route a background verification is started by (its scope is the console's too). */
const START_FULL = '/admin/v1/ledger/verifications';

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
    : html`<p class="muted">What was written since the last clean check: each new entry balances, names its provider and has its cause; each new payment entry is its transaction's, with its amount and fee; every transaction paid since has its entry; each merchant touched has running totals equal to its entries. <a id="verify-full" href="/console/books/verify?full=1">Check the whole journal</a> (takes longer as the books grow).</p>${
        pages.can(request, 'POST', START_FULL)
          ? html`<form method="post" action="/console/books/verify/jobs" class="filters">${csrfField(pages.operatorOf(request).csrf)}<button type="submit" id="verify-in-background">Check the whole journal in the background</button></form>`
          : ''
      }`
}
${verification(v)}`,
    );
  });

  // The full verification in the background (POST /admin/v1/ledger/verifications): started here,
  // followed on its own page until it is done.
  op.post('/books/verify/jobs', { config }, async (request, reply) => {
    pages.need(request, 'POST', START_FULL);
    const job = pages.deps.ledger.startFull();
    await pages.audit(request, {
      action: 'console: verify the whole journal',
      target: job.id,
      httpStatus: 202,
      after: job,
    });
    return reply.redirect(`/console/books/verify/jobs/${encodeURIComponent(job.id)}`, 303);
  });

  op.get<{ Params: { id: string } }>('/books/verify/jobs/:id', { config }, async (request, reply) => {
    const job = pages.deps.ledger.job(request.params.id);
    // Kept by the instance that runs it, until it stops.
    if (!job) throw notFound('verification');
    return pages.page(
      request,
      reply,
      'Verify ledger',
      'books',
      html`<h1>Books</h1>${booksTabs('verify')}
<h2>Verify the whole journal</h2>
${jobState(job)}`,
    );
  });
}

/** Where a background verification got to, and what it found once done. */
function jobState(job: VerificationJob): Html {
  if (job.state === 'running') {
    return html`<p id="verify-job" data-state="running">${badge('pending', 'running')} <span class="muted">${job.entriesRead} entr${job.entriesRead === 1 ? 'y' : 'ies'} read so far, started ${job.startedAt}.</span> <a href="/console/books/verify/jobs/${encodeURIComponent(job.id)}">See how far it got</a></p>`;
  }
  if (job.state === 'failed' || !job.result) {
    return html`<p id="verify-job" data-state="failed">${badge('problem', 'failed')} ${job.error ?? ''}</p>`;
  }
  return html`<p id="verify-job" data-state="done" class="muted">Started ${job.startedAt}, done ${job.finishedAt ?? ''}.</p>
${verification(job.result)}`;
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

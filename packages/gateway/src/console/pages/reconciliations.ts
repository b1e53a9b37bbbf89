import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import type { ReconciliationService } from '../../books/reconciliation-service.ts';
import { REPORT_LIMIT_BYTES } from '../../http/routes/admin-reconciliations.ts';
import { jakartaTime } from '../../web/format.ts';
import { type Html, html } from '../../web/html.ts';
import { booksTabs } from '../book-views.ts';
import { asConsoleError, ConsoleError, formOf, PAGE, q } from '../kit.ts';
import { config, type OperatorPages } from '../operator.ts';
import { badge, csrfField, empty, formProblems } from '../views.ts';

type Shown = Awaited<ReturnType<ReconciliationService['show']>>;
type Run = Shown['run'];
type ProblemPage = Shown['problems'];
type Problem = ProblemPage['items'][number];

const RUN = '/admin/v1/providers/:id/reconciliations';
const APPLY = '/admin/v1/reconciliations/:id/problems/:line/apply';
const HEADER = 'referenceNo,providerReference,amount,paidAt,status';

const runHref = (id: string) => `/console/books/reconciliations/${encodeURIComponent(id)}`;
const providerHref = (id: string) => `/console/books/reconciliations/providers/${encodeURIComponent(id)}`;

const PROBLEMS: Record<Problem['type'], string> = {
  missing_at_gateway: 'Paid at the provider, not at the gateway',
  missing_at_provider: 'Paid at the gateway, not in the report',
  amount_mismatch: 'The amounts differ',
  status_mismatch: 'The statuses differ',
  duplicate: 'Reported more than once',
};

/**
 * Reconciliation: per provider, its report set against the gateway's records (pasted as CSV text:
 * the console has no multipart parser), the runs kept, and a payment the gateway missed applied
 * through the provider's own door. Running and applying take the admin scope.
 */
export function reconciliationPages(op: FastifyInstance, pages: OperatorPages): void {
  const { providers, reconciliations } = pages.deps;

  op.get('/books/reconciliations', { config }, async (request, reply) => {
    const list = (await providers.list({ limit: 500 })).items;
    const last = await Promise.all(list.map(async (p) => (await reconciliations.list(p.id, 1))[0]));
    return pages.page(
      request,
      reply,
      'Reconciliation',
      'books',
      html`<h1>Books</h1>${booksTabs('reconciliations')}
<h2>Reconciliation</h2>
<p class="muted">Set a provider's report of the payments it saw against the gateway's records: every line is matched or a problem, and a payment the gateway missed can be applied. Choose the provider.</p>
${
  list.length === 0
    ? empty('No provider is registered.')
    : html`<div class="table-wrap"><table id="providers" class="stack"><thead><tr><th>Provider</th><th>Kind</th><th>Last run</th><th class="num">Problems</th></tr></thead><tbody>${list.map(
        (
          p,
          i,
        ) => html`<tr><td data-label="Provider"><a href="${providerHref(p.id)}">${p.name}</a></td><td data-label="Kind">${p.kind}</td>
<td data-label="Last run">${last[i] ? html`<a href="${runHref((last[i] as Run).id)}">${jakartaTime((last[i] as Run).createdAt)}</a>` : '—'}</td>
<td data-label="Problems" class="num">${last[i] ? (last[i] as Run).problemCount : ''}</td></tr>`,
      )}</tbody></table></div>`
}`,
    );
  });

  /** A provider's page; `refused`: a report that was not reconciled, shown again with why (400). */
  const providerPage = async (
    request: FastifyRequest,
    reply: FastifyReply,
    providerId: string,
    refused?: { csv: string; problems: string[] },
  ) => {
    const p = await providers.get(providerId);
    const runs = await reconciliations.list(p.id, PAGE);
    return pages.page(
      request,
      reply,
      `Reconcile ${p.name}`,
      'books',
      html`<h1>Reconcile ${p.name}</h1>${booksTabs('reconciliations')}
${pages.can(request, 'POST', RUN) ? uploadForm(p.id, pages.operatorOf(request).csrf, refused) : ''}
<section aria-labelledby="h-runs"><h2 id="h-runs">Runs</h2>${runTable(runs)}</section>`,
      refused ? 400 : 200,
    );
  };

  op.get<{ Params: { id: string } }>('/books/reconciliations/providers/:id', { config }, (request, reply) =>
    providerPage(request, reply, request.params.id),
  );

  op.post<{ Params: { id: string } }>(
    '/books/reconciliations/providers/:id',
    // Pasted as form text: a report up to the admin API's limit, percent-encoded.
    { config, bodyLimit: REPORT_LIMIT_BYTES * 3 },
    async (request, reply) => {
      pages.need(request, 'POST', RUN);
      const csv = formOf(request).csv ?? '';
      if (csv.trim() === '') throw new ConsoleError(400, 'paste the report: its CSV text, header first');
      if (Buffer.byteLength(csv) > REPORT_LIMIT_BYTES) {
        throw new ConsoleError(400, `the report is over ${REPORT_LIMIT_BYTES / 1024 / 1024} MiB: split it`);
      }
      let run: Run;
      try {
        ({ run } = await reconciliations.run(request.params.id, { bytes: Buffer.from(csv), format: 'csv' }));
      } catch (e) {
        // A report that cannot be read: the form again, with the report as pasted and why.
        const refusal = asConsoleError(e);
        if (refusal?.status !== 400) throw e;
        const problems = refusal.problems.length > 0 ? refusal.problems : [refusal.message];
        return providerPage(request, reply, request.params.id, { csv, problems });
      }
      await pages.audit(request, {
        action: 'console: reconcile provider report',
        target: request.params.id,
        httpStatus: 201,
        // The report itself may be megabytes: the run keeps what it found.
        fields: { report: `${Buffer.byteLength(csv)} bytes of CSV` },
        after: { id: run.id, lines: run.lines, matched: run.matched, problems: run.problemCount },
      });
      return reply.redirect(`${runHref(run.id)}?ok=reconciled`, 303);
    },
  );

  op.get<{ Params: { id: string } }>('/books/reconciliations/:id', { config }, async (request, reply) => {
    // A page of the problems at a time: a run may have 100,000 (`cursor` as the admin API takes it).
    const cursor = q(request.query, 'cursor', 512);
    const { run, problems } = await reconciliations.show(request.params.id, { cursor, limit: PAGE });
    const p = await providers.find(run.providerId);
    const canApply = pages.can(request, 'POST', APPLY);
    return pages.page(
      request,
      reply,
      `Reconciliation ${run.id}`,
      'books',
      html`<h1>Reconciliation ${run.id}</h1>${booksTabs('reconciliations')}
<section class="card" aria-labelledby="h-run"><h2 id="h-run">Run</h2><dl class="kv" id="run-summary">
<dt>Provider</dt><dd><a href="${providerHref(run.providerId)}">${p?.name ?? run.providerId}</a></dd>
<dt>Run</dt><dd>${jakartaTime(run.createdAt)}</dd>
<dt>Report covers</dt><dd>${run.from === run.to ? run.from : `${run.from} to ${run.to}`} (WIB days)</dd>
<dt>Lines</dt><dd>${run.lines}</dd><dt>Matched</dt><dd>${run.matched}</dd><dt>Problems</dt><dd>${run.problemCount}</dd>
</dl></section>
<section aria-labelledby="h-problems"><h2 id="h-problems">Problems</h2>
${problemTable(run, problems, cursor, canApply ? pages.operatorOf(request).csrf : undefined)}</section>`,
    );
  });

  op.post<{ Params: { id: string; line: string } }>(
    '/books/reconciliations/:id/problems/:line/apply',
    { config },
    async (request, reply) => {
      pages.need(request, 'POST', APPLY);
      const fields = formOf(request);
      const { id } = request.params;
      if (!/^[1-9]\d{0,6}$/.test(request.params.line)) throw new ConsoleError(404, 'there is no such problem');
      const line = Number(request.params.line);
      const action = 'console: apply reconciliation problem';
      const target = `${id}#${line}`;
      try {
        const r = await reconciliations.apply(pages.callerOf(request), id, line, request.id);
        await pages.audit(request, { action, target, httpStatus: 200, fields, after: r });
      } catch (e) {
        const refusal = asConsoleError(e);
        if (refusal?.status !== 409) throw e;
        return pages.refused(request, reply, runHref(id), `Line ${line} was not applied: ${refusal.message}.`, {
          status: 409,
          action,
          target,
        });
      }
      const back = new URLSearchParams({ ...(fields.cursor ? { cursor: fields.cursor } : {}), ok: 'applied' });
      return reply.redirect(`${runHref(id)}?${back}#line-${line}`, 303);
    },
  );
}

function uploadForm(providerId: string, csrf: string, refused?: { csv: string; problems: string[] }): Html {
  return html`<section class="card" aria-labelledby="h-upload"><h2 id="h-upload">Reconcile a report</h2>
${refused ? formProblems('The report was not reconciled:', refused.problems) : ''}
<form method="post" action="${providerHref(providerId)}">${csrfField(csrf)}
<label for="report-csv">The provider's report (CSV text, header first)</label>
<textarea id="report-csv" name="csv" rows="8" required spellcheck="false" class="report" placeholder="${HEADER}
QR2601151030000001,ACQ-1,100000.00,2026-01-15T10:30:00+07:00,00">${refused?.csv ?? ''}</textarea>
<p class="muted">Header <code>${HEADER}</code>; one paid transaction a line; <code>referenceNo</code> may be empty when <code>providerReference</code> names the payment; <code>status</code> is <code>00</code> unless given. Open the provider's file in a text editor and paste it here.</p>
<button type="submit">Reconcile</button></form></section>`;
}

function runTable(runs: Run[]): Html {
  if (runs.length === 0) return empty('No run yet for this provider.');
  return html`<div class="table-wrap"><table id="runs" class="stack"><thead><tr><th>Run</th><th>Report covers</th><th class="num">Lines</th><th class="num">Matched</th><th class="num">Problems</th></tr></thead><tbody>${runs.map(
    (r) =>
      html`<tr><td data-label="Run"><a href="${runHref(r.id)}">${jakartaTime(r.createdAt)}</a></td><td data-label="Report covers">${r.from === r.to ? r.from : `${r.from} to ${r.to}`}</td><td data-label="Lines" class="num">${r.lines}</td><td data-label="Matched" class="num">${r.matched}</td><td data-label="Problems" class="num">${r.problemCount}</td></tr>`,
  )}</tbody></table></div>`;
}

/** Where a page of a run's problems is: the first without a cursor. */
const problemsHref = (run: Run, cursor: string) =>
  cursor === ''
    ? `${runHref(run.id)}#h-problems`
    : `${runHref(run.id)}?cursor=${encodeURIComponent(cursor)}#h-problems`;

/** Previous and next links of a run's problems, when there is more than one page. */
function problemPager(run: Run, page: ProblemPage): Html | '' {
  if (page.prevCursor === null && page.nextCursor === null) return '';
  return html`<nav class="pager" aria-label="Pages of problems">${
    page.prevCursor === null
      ? ''
      : html`<a href="${problemsHref(run, page.prevCursor)}" id="problems-prev">← Previous</a>`
  }${page.nextCursor === null ? '' : html`<a href="${problemsHref(run, page.nextCursor)}" id="problems-next">Next →</a>`}</nav>`;
}

/**
 * A page of the run's problems, with links to the pages around it; `csrf` (an admin key) adds Apply
 * to each payment missing at the gateway not yet applied.
 */
function problemTable(run: Run, page: ProblemPage, cursor: string | undefined, csrf: string | undefined): Html {
  if (run.problemCount === 0) return empty('No problem: every line of the report matched.');
  // An Apply comes back to the page it was made on.
  const cursorField = cursor ? html`<input type="hidden" name="cursor" value="${cursor}">` : '';
  if (page.items.length === 0) return html`${empty('No problem on this page.')}${problemPager(run, page)}`;
  const state = (p: Problem) => {
    const at = p.resolvedAt;
    if (at !== undefined) return html`${badge('applied', 'applied')} <span class="muted">${jakartaTime(at)}</span>`;
    if (p.type !== 'missing_at_gateway' || p.line === null) return '';
    // The gateway has no transaction of that reference (nothing it knew was open): nothing to apply.
    if (p.expected === undefined) return html`<span class="muted">unknown to the gateway: nothing to apply</span>`;
    if (!csrf) return badge('open', 'not applied');
    return html`<form method="post" action="${runHref(run.id)}/problems/${p.line}/apply" class="inline" data-confirm="Apply line ${p.line}? ${p.referenceNo ?? 'The transaction'} becomes paid (00) and its merchant is notified.">${csrfField(csrf)}${cursorField}<button type="submit">Apply line ${p.line}</button></form>`;
  };
  return html`<div class="table-wrap"><table id="problems" class="stack"><thead><tr><th class="num">Line</th><th>Problem</th><th>Transaction</th><th>Gateway has</th><th>Report says</th><th></th></tr></thead><tbody>${page.items.map(
    (p) => html`<tr id="${p.line === null ? `problem-${p.referenceNo ?? ''}` : `line-${p.line}`}" data-type="${p.type}">
<td data-label="Line" class="num">${p.line ?? '—'}</td>
<td data-label="Problem">${badge('problem', p.type)}<br><span class="muted">${PROBLEMS[p.type]}</span></td>
<td data-label="Transaction">${p.referenceNo ? html`<a href="/console/transactions/${encodeURIComponent(p.referenceNo)}">${p.referenceNo}</a>` : '—'}</td>
<td data-label="Gateway has">${p.expected ?? '—'}</td><td data-label="Report says">${p.actual ?? '—'}</td>
<td data-label="">${state(p)}</td></tr>`,
  )}</tbody></table></div>${problemPager(run, page)}`;
}

import { randomInt } from 'node:crypto';
import type { TransactionStatus } from '@snapgate/snap';
import type { FastifyInstance } from 'fastify';
import { notFound } from '../../domain-error.ts';
import { IllegalStatusChange } from '../../payments/status-change.ts';
import type { TransactionRecord } from '../../payments/transaction-reads.ts';
import { ProviderRefusal, type SandboxPayer } from '../../providers/sandbox-providers.ts';
import { type Html, html } from '../html.ts';
import { blank, ConsoleError, formOf, PAGE } from '../kit.ts';
import { config, type OperatorPages } from '../operator.ts';
import { csrfField, transactionTable } from '../views.ts';

const refused = (e: unknown): never => {
  if (e instanceof IllegalStatusChange) throw new ConsoleError(409, e.message);
  if (e instanceof ProviderRefusal) throw new ConsoleError(e.httpStatus, `${e.responseCode} ${e.responseMessage}`);
  throw e;
};

const payerOf = (fields: Record<string, string>) => ({
  payerName: blank(fields.payerName)?.slice(0, 100) ?? 'SANDBOX PAYER',
  payerIssuer: '93600009',
  payerRefId: String(100_000_000_000 + randomInt(900_000_000_000)),
});

/**
 * Sandbox mode: the open transactions, and paying, pending or failing one as the sandbox acquirer
 * (QRIS) or bank (VA) would, through the provider API.
 */
export function sandboxPages(op: FastifyInstance, pages: OperatorPages, payer: SandboxPayer): void {
  const { clock, merchants, transactions, qris } = pages.deps;

  op.get('/sandbox', { config }, async (request, reply) => {
    const caller = pages.callerOf(request);
    const [open, all] = await Promise.all([
      Promise.all(
        (['01', '03'] as TransactionStatus[]).map((status) => transactions.search(caller, { status }, PAGE, 0)),
      ),
      merchants.all(),
    ]);
    const rows = open.flat().sort((a, b) => b.createdAt - a.createdAt);
    return pages.page(
      request,
      reply,
      'Sandbox',
      'sandbox',
      html`<h1>Sandbox</h1><p>Open transactions: open one to pay, pend or fail it as the sandbox acquirer (QRIS) or bank (VA) would, through the provider API.</p>
${transactionTable(rows, '/console', new Map(all.map((m) => [m.id, m.name])))}`,
    );
  });

  op.post<{ Params: { referenceNo: string } }>('/sandbox/qris/:referenceNo', { config }, async (request, reply) => {
    pages.need(request, 'POST', '/admin/v1/sandbox/qris/:referenceNo/pay');
    const fields = formOf(request);
    const status = fields.status;
    if (status !== '00' && status !== '01' && status !== '06')
      throw new ConsoleError(400, 'status must be 00, 01 or 06');
    const ref = request.params.referenceNo;
    let txn: TransactionRecord | undefined;
    if (status === '01') txn = await qris.renotify({ referenceNo: ref }, clock.now(), request.id);
    else
      txn = await payer
        .payQris({ referenceNo: ref }, { status, payer: payerOf(fields), requestId: request.id })
        .catch(refused);
    if (!txn) throw notFound('QRIS transaction');
    await pages.audit(request, {
      action: `console: sandbox qris ${status === '00' ? 'pay' : status === '01' ? 'pend' : 'fail'}`,
      target: ref,
      httpStatus: 200,
      fields,
      after: { referenceNo: txn.referenceNo, status: txn.status },
    });
    const ok = status === '00' ? 'paid' : status === '01' ? 'pending' : 'failed';
    return reply.redirect(`/console/transactions/${encodeURIComponent(txn.referenceNo)}?ok=${ok}`, 303);
  });

  op.post<{ Params: { virtualAccountNo: string } }>(
    '/sandbox/va/:virtualAccountNo',
    { config },
    async (request, reply) => {
      pages.need(request, 'POST', '/admin/v1/sandbox/va/:virtualAccountNo/pay');
      const fields = formOf(request);
      const amount = blank(fields.amount);
      if (amount !== undefined && !/^(0|[1-9]\d{0,15})\.\d{2}$/.test(amount)) {
        throw new ConsoleError(400, 'the amount is a money value like 10000.00');
      }
      const txn = await payer
        .payVa(request.params.virtualAccountNo, {
          ...(amount ? { amount } : {}),
          payer: payerOf(fields),
          requestId: request.id,
        })
        .catch(refused);
      await pages.audit(request, {
        action: 'console: sandbox va pay',
        target: request.params.virtualAccountNo,
        httpStatus: 200,
        fields,
        after: { referenceNo: txn.referenceNo, status: txn.status },
      });
      return reply.redirect(`/console/transactions/${encodeURIComponent(txn.referenceNo)}?ok=paid`, 303);
    },
  );
}

/** The sandbox actions on a transaction's page. */
export function sandboxActions(t: TransactionRecord, csrf: string): Html | undefined {
  if (t.kind === 'qris') {
    const form = (status: string, label: string, cls = '') =>
      html`<form method="post" action="/console/sandbox/qris/${encodeURIComponent(t.referenceNo)}" class="inline">${csrfField(csrf)}<input type="hidden" name="status" value="${status}"><button type="submit" class="${cls}">${label}</button></form>`;
    return html`<section class="card" aria-labelledby="h-sandbox"><h2 id="h-sandbox">Sandbox</h2>
<p class="muted">Act as the sandbox acquirer: the report goes through the provider API like a real one.</p>
<div class="actions">${form('00', 'Pay (00)')}${form('01', 'Pend (01, notify again)', 'secondary')}${form('06', 'Fail (06)', 'danger')}</div></section>`;
  }
  if (t.virtualAccountNo) {
    return html`<section class="card" aria-labelledby="h-sandbox"><h2 id="h-sandbox">Sandbox</h2>
<p class="muted">Act as the sandbox bank: inquiry then payment, through the provider API.</p>
<form method="post" action="/console/sandbox/va/${encodeURIComponent(t.virtualAccountNo)}" class="filters">${csrfField(csrf)}
<label>Amount (empty: the bill)<input name="amount" inputmode="decimal" placeholder="${t.amount ?? '10000.00'}"></label>
<button type="submit">Pay VA</button></form></section>`;
  }
  return undefined;
}

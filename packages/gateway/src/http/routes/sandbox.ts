import { randomInt } from 'node:crypto';
import { isSnapError } from '@snapgate/snap';
import type { FastifyInstance } from 'fastify';
import { z } from 'zod';
import type { Clock } from '../../clock.ts';
import type { QrisService } from '../../payments/qris-service.ts';
import { IllegalStatusChange } from '../../payments/status-change.ts';
import { transactionView } from '../../payments/transaction-view.ts';
import type { VaService } from '../../payments/va-service.ts';
import { parseAdminBody } from '../admin-body.ts';
import { notFound, ProblemError } from '../problem.ts';

const payer = {
  payerName: z.string().max(100).optional(),
  payerIssuer: z
    .string()
    .regex(/^\d{1,20}$/, 'must be numeric')
    .optional(),
  payerRefId: z
    .string()
    .regex(/^\d{1,32}$/, 'must be numeric')
    .optional(),
};
const qrisPay = z.strictObject({ status: z.enum(['00', '01', '02', '03', '06']).default('00'), ...payer });
const qrisScan = qrisPay.extend({ qrContent: z.string().min(1).max(512) });
const vaPay = z.strictObject({
  amount: z
    .string()
    .regex(/^(0|[1-9]\d{0,15})\.\d{2}$/, 'must be a money value like 10000.00')
    .optional(),
  ...payer,
});

const withDefaults = (p: z.infer<typeof qrisPay> | z.infer<typeof vaPay>) => ({
  payerName: p.payerName ?? 'SANDBOX PAYER',
  payerIssuer: p.payerIssuer ?? '93600009',
  payerRefId: p.payerRefId ?? String(100_000_000_000 + randomInt(900_000_000_000)),
});

/** Turns a refused sandbox payment into a problem that carries the SNAP code too. */
function refused(e: unknown): never {
  if (e instanceof IllegalStatusChange) throw new ProblemError(409, 'Conflict', e.message);
  if (isSnapError(e)) {
    const p = new ProblemError(e.httpStatus, e.responseMessage, e.responseMessage);
    p.snap = { responseCode: e.responseCode, responseMessage: e.responseMessage };
    throw p;
  }
  throw e;
}

/** SPEC §5 sandbox: the payer's side, only in sandbox mode. */
export function sandboxRoutes(app: FastifyInstance, deps: { qris: QrisService; va: VaService; clock: Clock }) {
  const { qris, va, clock } = deps;
  const config = { api: 'admin' as const };

  app.post<{ Params: { referenceNo: string } }>('/sandbox/qris/:referenceNo/pay', { config }, async (request) => {
    const b = parseAdminBody(request, qrisPay, true);
    const txn = await qris
      .pay({ referenceNo: request.params.referenceNo }, { status: b.status, payer: withDefaults(b) }, clock.now())
      .catch(refused);
    if (!txn) throw notFound('QRIS transaction');
    return transactionView(txn);
  });

  app.post('/sandbox/qris/pay', { config }, async (request) => {
    const b = parseAdminBody(request, qrisScan);
    const txn = await qris
      .pay({ qrContent: b.qrContent }, { status: b.status, payer: withDefaults(b) }, clock.now())
      .catch(refused);
    if (!txn) throw notFound('QRIS transaction for that qrContent (or its CRC does not match)');
    return transactionView(txn);
  });

  app.post<{ Params: { virtualAccountNo: string } }>(
    '/sandbox/va/:virtualAccountNo/pay',
    { config },
    async (request) => {
      const b = parseAdminBody(request, vaPay, true);
      const txn = await va
        .pay(request.params.virtualAccountNo, { amount: b.amount, payer: withDefaults(b) }, clock.now())
        .catch(refused);
      return transactionView(txn);
    },
  );
}

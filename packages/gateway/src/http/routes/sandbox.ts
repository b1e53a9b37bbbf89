import { randomInt } from 'node:crypto';
import type { FastifyInstance } from 'fastify';
import { z } from 'zod';
import type { Clock } from '../../clock.ts';
import type { QrisService } from '../../payments/qris-service.ts';
import { IllegalStatusChange } from '../../payments/status-change.ts';
import { transactionView } from '../../payments/transaction-view.ts';
import { ProviderRefusal, type SandboxPayer } from '../../providers/sandbox-providers.ts';
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
export const qrisPay = z.strictObject({ status: z.enum(['00', '01', '02', '03', '06']).default('00'), ...payer });
export const qrisScan = qrisPay.extend({ qrContent: z.string().min(1).max(512) });
export const vaPay = z.strictObject({
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

/** Turns a payment the provider path refused into a problem that carries the SNAP code too. */
function refused(e: unknown): never {
  if (e instanceof IllegalStatusChange) throw new ProblemError(409, 'Conflict', e.message);
  if (e instanceof ProviderRefusal) {
    const p = new ProblemError(e.httpStatus, e.responseMessage, e.responseMessage);
    p.snap = { responseCode: e.responseCode, responseMessage: e.responseMessage };
    throw p;
  }
  throw e;
}

/**
 * The payer's side, only in sandbox mode. Payments go through the provider API over HTTP (the
 * sandbox bank and acquirer); status 01 only re-sends the current notification.
 */
export function sandboxRoutes(app: FastifyInstance, deps: { qris: QrisService; payer: SandboxPayer; clock: Clock }) {
  const { qris, payer, clock } = deps;
  const config = { api: 'admin' as const };

  const payQris = async (
    ref: { referenceNo?: string; qrContent?: string },
    b: z.infer<typeof qrisPay>,
    requestId: string,
  ) => {
    if (b.status !== '01') return payer.payQris(ref, { status: b.status, payer: withDefaults(b), requestId });
    const txn = await qris.renotify(ref, clock.now(), requestId);
    if (!txn) throw notFound('QRIS transaction');
    return txn;
  };

  app.post<{ Params: { referenceNo: string } }>('/sandbox/qris/:referenceNo/pay', { config }, async (request) => {
    const b = parseAdminBody(request, qrisPay, true);
    return transactionView(await payQris({ referenceNo: request.params.referenceNo }, b, request.id).catch(refused));
  });

  app.post('/sandbox/qris/pay', { config }, async (request) => {
    const b = parseAdminBody(request, qrisScan);
    return transactionView(await payQris({ qrContent: b.qrContent }, b, request.id).catch(refused));
  });

  app.post<{ Params: { virtualAccountNo: string } }>(
    '/sandbox/va/:virtualAccountNo/pay',
    { config },
    async (request) => {
      const b = parseAdminBody(request, vaPay, true);
      const txn = await payer
        .payVa(request.params.virtualAccountNo, { amount: b.amount, payer: withDefaults(b), requestId: request.id })
        .catch(refused);
      return transactionView(txn);
    },
  );
}

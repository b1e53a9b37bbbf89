import { randomInt } from 'node:crypto';
import type { FastifyInstance } from 'fastify';
import { z } from 'zod';
import type { Clock } from '../../clock.ts';
import type { QrisService } from '../../payments/qris-service.ts';
import { IllegalStatusChange } from '../../payments/status-change.ts';
import { transactionView } from '../../payments/transaction-view.ts';
import { ProviderRefusal, type SandboxPayer } from '../../providers/sandbox-providers.ts';
import { parseAdminBody } from '../admin-body.ts';
import { body, conflict, notFound as notFoundDoc, ok, op, problem, TAG, textParam } from '../openapi/admin-kit.ts';
import { TRANSACTION_EXAMPLE } from '../openapi/admin-schemas.ts';
import { fromZod, type Operation, type Response, ref } from '../openapi/kit.ts';
import { documentedRoute, type RouteDocs } from '../openapi/route-docs.ts';
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
export const ewalletPay = z.strictObject({
  status: z.enum(['00', '06']).default('00'),
  payerName: payer.payerName,
  payerRefId: payer.payerRefId,
});
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
export function sandboxRoutes(
  app: FastifyInstance,
  deps: { qris: QrisService; payer: SandboxPayer; clock: Clock; docs: RouteDocs },
) {
  const { qris, payer, clock } = deps;
  const config = { api: 'admin' as const };
  const ops = sandboxOperations();

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

  documentedRoute<{ Params: { referenceNo: string } }>(app, deps.docs, {
    method: 'post',
    url: '/sandbox/qris/:referenceNo/pay',
    config,
    operation: ops.sandboxPayQris,
    handler: async (request) => {
      const b = parseAdminBody(request, qrisPay, true);
      return transactionView(await payQris({ referenceNo: request.params.referenceNo }, b, request.id).catch(refused));
    },
  });

  documentedRoute(app, deps.docs, {
    method: 'post',
    url: '/sandbox/qris/pay',
    config,
    operation: ops.sandboxScanQris,
    handler: async (request) => {
      const b = parseAdminBody(request, qrisScan);
      return transactionView(await payQris({ qrContent: b.qrContent }, b, request.id).catch(refused));
    },
  });

  documentedRoute<{ Params: { referenceNo: string } }>(app, deps.docs, {
    method: 'post',
    url: '/sandbox/ewallet/:referenceNo/pay',
    config,
    operation: ops.sandboxPayEwallet,
    handler: async (request) => {
      const b = parseAdminBody(request, ewalletPay, true);
      const who = withDefaults(b);
      const txn = await payer
        .payEwallet(request.params.referenceNo, {
          status: b.status,
          payer: { payerName: who.payerName, payerRefId: who.payerRefId },
          requestId: request.id,
        })
        .catch(refused);
      return transactionView(txn);
    },
  });

  documentedRoute<{ Params: { virtualAccountNo: string } }>(app, deps.docs, {
    method: 'post',
    url: '/sandbox/va/:virtualAccountNo/pay',
    config,
    operation: ops.sandboxPayVa,
    handler: async (request) => {
      const b = parseAdminBody(request, vaPay, true);
      const txn = await payer
        .payVa(request.params.virtualAccountNo, { amount: b.amount, payer: withDefaults(b), requestId: request.id })
        .catch(refused);
      return transactionView(txn);
    },
  });
}

const PAYER_FIELDS = {
  payerName: 'Default `SANDBOX PAYER`.',
  payerIssuer: 'Default `93600009`.',
  payerRefId: 'Default: random digits.',
};

const REFUSED = (what: string) =>
  problem('400', `${what}, or the provider path refused the payment (400 with its SNAP code).`, {
    example: {
      value: {
        type: 'about:blank',
        title: 'Bad Request',
        status: 400,
        detail: 'invalid request body',
        errors: ['status: Invalid option: expected one of "00"|"01"|"02"|"03"|"06"'],
      },
    },
  });
const PROVIDER_REFUSAL = (status: string, description: string, responseCode: string, responseMessage: string) =>
  problem(status, description, {
    example: {
      value: {
        type: 'about:blank',
        title: responseMessage,
        status: Number(status),
        detail: responseMessage,
        responseCode,
        responseMessage,
      },
    },
  });
const ILLEGAL_CHANGE = () =>
  conflict(
    'The transaction’s status cannot change to that one.',
    'a transaction in status 05 (Canceled) cannot change to 00 (Success)',
  );

/** What the admin API's document says of each route of this area, by operationId. */
function sandboxOperations() {
  const sandbox = (o: Omit<Operation, 'tags'>) => op({ ...o, tags: [TAG.sandbox] });
  const view: Record<string, Response> = ok(
    'The transaction after the payment.',
    ref('Transaction'),
    TRANSACTION_EXAMPLE,
  );
  return {
    sandboxPayQris: sandbox({
      operationId: 'sandboxPayQris',
      summary: 'Pay a QRIS (sandbox)',
      description:
        'The sandbox acquirer notifies the gateway over HTTP, exactly as a real acquirer would (`qr-mpm-notify`). `status` 01 only sends the current notification again.',
      parameters: [textParam('referenceNo', 'The QRIS `referenceNo`.')],
      requestBody: body(
        fromZod(qrisPay, {
          ...PAYER_FIELDS,
          status:
            'What the payer did: 00 paid (default), 02 paying, 03 pending, 06 failed; 01 re-sends the current notification.',
        }),
        { status: '00', payerName: 'ANI' },
        { optional: true },
      ),
      responses: {
        ...view,
        '400': REFUSED('Invalid body'),
        '404': PROVIDER_REFUSAL(
          '404',
          'No such QRIS, or the provider path did not find it.',
          '4045201',
          'Transaction Not Found',
        ),
        '409': ILLEGAL_CHANGE(),
      },
    }),
    sandboxScanQris: sandbox({
      operationId: 'sandboxScanQris',
      summary: 'Pay a QRIS by its content (sandbox)',
      description: 'As a payer’s app would: the QRIS is found by its `qrContent` (its CRC must match).',
      requestBody: body(
        fromZod(qrisScan, {
          ...PAYER_FIELDS,
          status: 'As for payment by reference.',
          qrContent: 'The QR payload, as scanned.',
        }),
        { qrContent: '00020101021226…6304ABCD' },
      ),
      responses: {
        ...view,
        '400': REFUSED('Invalid body'),
        '404': notFoundDoc('QRIS transaction for that qrContent (or its CRC does not match)'),
        '409': ILLEGAL_CHANGE(),
      },
    }),
    sandboxPayEwallet: sandbox({
      operationId: 'sandboxPayEwallet',
      summary: 'Approve or decline an e-wallet payment (sandbox)',
      description:
        'The payer answers the sandbox wallet (`SANDBOXPAY`), and the wallet notifies the gateway over HTTP, exactly as a real wallet would (`debit/notify`).',
      parameters: [textParam('referenceNo', 'The payment’s `referenceNo`.')],
      requestBody: body(
        fromZod(ewalletPay, {
          payerName: PAYER_FIELDS.payerName,
          payerRefId: PAYER_FIELDS.payerRefId,
          status: 'What the payer did: 00 approved (default), 06 declined.',
        }),
        { status: '00', payerName: 'ANI' },
        { optional: true },
      ),
      responses: {
        ...view,
        '400': REFUSED('Invalid body'),
        '404': notFoundDoc('e-wallet payment of the sandbox wallet'),
        '409': ILLEGAL_CHANGE(),
      },
    }),
    sandboxPayVa: sandbox({
      operationId: 'sandboxPayVa',
      summary: 'Pay a Virtual Account (sandbox)',
      description:
        'The sandbox bank asks for the bill (`transfer-va/inquiry`) and flags the payment (`transfer-va/payment`) over HTTP, exactly as a real bank would. Only VAs of a bank code no bank is registered with belong to the sandbox bank.',
      parameters: [textParam('virtualAccountNo', 'The VA number, URL-encoded (it may start with spaces).')],
      requestBody: body(
        fromZod(vaPay, { ...PAYER_FIELDS, amount: 'Default: the bill’s amount.' }),
        { amount: '150000.00' },
        { optional: true, description: '`amount` defaults to the bill.' },
      ),
      responses: {
        ...view,
        '400': REFUSED('Invalid body'),
        '404': PROVIDER_REFUSAL(
          '404',
          'The provider path refused it: unknown VA (`4042412`), paid (`4042414`), expired (`4042419`), wrong amount (`4042513`), …',
          '4042412',
          'Invalid Bill/Virtual Account [Not Found]',
        ),
        '409': conflict('The VA changed meanwhile.', 'the VA changed during the payment'),
      },
    }),
  } satisfies Record<string, Operation>;
}

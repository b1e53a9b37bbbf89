import type { FastifyInstance } from 'fastify';
import { z } from 'zod';
import { exchangeView, type PayoutService, payoutView } from '../../payouts/payout-service.ts';
import { callerOf } from '../admin-auth.ts';
import { idParams, parseWith } from '../admin-body.ts';
import {
  BAD_PATH,
  BAD_QUERY,
  conflict,
  DATE_TIME,
  idParam,
  LIST_DESCRIPTIONS,
  notFound,
  ok,
  op,
  problem,
  T,
  TAG,
} from '../openapi/admin-kit.ts';
import { closed, type JsonSchema, nullable, type Operation, queryParameters } from '../openapi/kit.ts';
import { documentedRoute, type RouteDocs } from '../openapi/route-docs.ts';

export const payoutListQuery = z.strictObject({
  kind: z.enum(['settlement', 'disbursement']).optional(),
  state: z.enum(['awaiting_approval', 'sending', 'pending', 'paid', 'failed', 'rejected']).optional(),
  merchantId: z.string().max(64).optional(),
  limit: z.coerce.number().int().min(1).max(500).default(50),
});

/** Payouts through the bank (docs/payouts.md#paying-a-settlement): read, approved, rejected. */
export function adminPayoutRoutes(app: FastifyInstance, deps: { payouts: PayoutService; docs: RouteDocs }) {
  const { payouts } = deps;
  const config = { api: 'admin' as const };
  const ops = payoutOperations();

  documentedRoute(app, deps.docs, {
    method: 'get',
    url: '/payouts',
    config,
    operation: ops.listPayouts,
    handler: async (request) => {
      const q = parseWith(payoutListQuery, request.query, 'invalid query');
      const items = await payouts.list(
        callerOf(request),
        { kind: q.kind, state: q.state, merchantId: q.merchantId },
        q.limit,
      );
      return { items: items.map(payoutView) };
    },
  });

  documentedRoute(app, deps.docs, {
    method: 'get',
    url: '/payouts/:id',
    config,
    operation: ops.getPayout,
    handler: async (request) => {
      const { id } = parseWith(idParams, request.params, 'invalid path');
      const { payout, exchanges } = await payouts.show(callerOf(request), id);
      return { ...payoutView(payout), exchanges: exchanges.map(exchangeView) };
    },
  });

  documentedRoute(app, deps.docs, {
    method: 'post',
    url: '/payouts/:id/approve',
    config,
    operation: ops.approvePayout,
    handler: async (request) => {
      const { id } = parseWith(idParams, request.params, 'invalid path');
      return payoutView(await payouts.approve(callerOf(request), id));
    },
  });

  documentedRoute(app, deps.docs, {
    method: 'post',
    url: '/payouts/:id/reject',
    config,
    operation: ops.rejectPayout,
    handler: async (request) => {
      const { id } = parseWith(idParams, request.params, 'invalid path');
      return payoutView(await payouts.reject(callerOf(request), id));
    },
  });
}

const MONEY: JsonSchema = { type: 'string', pattern: '^(0|[1-9]\\d*)\\.\\d{2}$' };
const STATE = { enum: ['awaiting_approval', 'sending', 'pending', 'paid', 'failed', 'rejected'] };
const PAYOUT_PROPERTIES: Record<string, JsonSchema> = {
  id: { type: 'string' },
  kind: { enum: ['settlement', 'disbursement'] },
  merchantId: { type: 'string' },
  settlementId: { type: 'string' },
  referenceNo: { type: 'string' },
  amount: MONEY,
  fee: MONEY,
  beneficiary: closed({ bankCode: { type: 'string' }, accountNo: { type: 'string' }, name: { type: 'string' } }),
  state: {
    ...STATE,
    description:
      '`sending`: recorded before the bank was called; `pending`: the bank took it, or gave no clear answer: its status is asked on SNAPGATE_TRANSFER_STATUS_SCHEDULE.',
  },
  partnerReferenceNo: { type: 'string', description: 'The transfer’s partnerReferenceNo, from the payout’s id.' },
  requestedBy: { type: 'string', description: 'The id of the admin key that asked for it.' },
  approvedBy: nullable({ type: 'string' }),
  bankReference: { ...nullable({ type: 'string' }), description: 'The bank’s referenceNo of the transfer.' },
  error: nullable({ type: 'string' }),
  nextCheckAt: { ...nullable(DATE_TIME), description: 'When the bank is next asked about it.' },
  createdAt: DATE_TIME,
  updatedAt: DATE_TIME,
};
const REQUIRED = Object.keys(PAYOUT_PROPERTIES).filter((k) => k !== 'settlementId' && k !== 'referenceNo');
const PAYOUT: JsonSchema = {
  type: 'object',
  additionalProperties: false,
  required: REQUIRED,
  properties: PAYOUT_PROPERTIES,
};
const EXCHANGE: JsonSchema = {
  type: 'object',
  additionalProperties: false,
  required: ['at', 'service', 'request', 'status', 'response'],
  properties: {
    at: DATE_TIME,
    service: { enum: ['15', '16', '17', '18', '36'] },
    request: { type: 'object', description: 'The SNAP body sent (no secret, no signature).' },
    status: { ...nullable({ type: 'integer' }), description: 'The answer’s HTTP status; null when none came.' },
    response: { ...nullable({ type: 'object' }), description: 'The SNAP answer; null when there was none.' },
    error: { type: 'string', description: 'Why there is no SNAP answer (a timeout, a network failure).' },
  },
};
const PAYOUT_WITH_EXCHANGES: JsonSchema = {
  ...PAYOUT,
  required: [...REQUIRED, 'exchanges'],
  properties: { ...PAYOUT_PROPERTIES, exchanges: { type: 'array', items: EXCHANGE } },
};

const PAYOUT_EXAMPLE = {
  id: 'po_5d1e0c7a9b2f4e3d8c6a1b0f9e8d7c6b',
  kind: 'settlement',
  merchantId: 'm_0123456789abcdef',
  settlementId: 'stl_7f3c9a1e2b4d4c6f8a0b1c2d3e4f5a6b',
  amount: '99300.00',
  fee: '0.00',
  beneficiary: { bankCode: '999', accountNo: '1234567890', name: 'SANDBOX 7890' },
  state: 'paid',
  partnerReferenceNo: 'PO5D1E0C7A9B2F4E3D8C6A1B0F9E8D7C6B',
  requestedBy: 'key_0123456789abcdef',
  approvedBy: null,
  bankReference: '99917000000001',
  error: null,
  nextCheckAt: null,
  createdAt: T,
  updatedAt: T,
};

const FORBIDDEN_SELF = problem('403', 'The key that asked for the payout (or a key whose scope does not cover this).', {
  self: {
    value: {
      type: 'about:blank',
      title: 'Forbidden',
      status: 403,
      detail: 'the key that asked for a payout cannot approve it',
    },
  },
});

/** What the admin API's document says of each route of this area, by operationId. */
function payoutOperations() {
  const payoutId = idParam('payout');
  const decide = (verb: 'approve' | 'reject') =>
    op({
      operationId: `${verb}Payout`,
      tags: [TAG.books],
      summary: verb === 'approve' ? 'Approve a payout: it is sent' : 'Reject a payout: its settlement is open again',
      description:
        'A payout above SNAPGATE_PAYOUT_APPROVAL_ABOVE waits in `awaiting_approval` until another key than the one that asked decides: an `admin` key, or an `approve` key (which may do nothing else).',
      parameters: [payoutId],
      responses: {
        ...ok(
          verb === 'approve' ? 'The payout, sent: `paid`, `pending` or `failed`.' : 'The payout, `rejected`.',
          PAYOUT,
          verb === 'approve' ? PAYOUT_EXAMPLE : { ...PAYOUT_EXAMPLE, state: 'rejected', bankReference: null },
        ),
        '400': BAD_PATH,
        '403': FORBIDDEN_SELF,
        '404': notFound('payout'),
        '409': conflict('It is not awaiting approval.', 'payout po_… is paid: only one awaiting approval is approved'),
      },
    });
  return {
    listPayouts: op({
      operationId: 'listPayouts',
      tags: [TAG.books],
      summary: 'List payouts through the bank',
      description: 'Newest first.',
      parameters: queryParameters(payoutListQuery, {
        kind: 'Only this kind.',
        state: 'Only payouts in this state.',
        merchantId: LIST_DESCRIPTIONS.merchantId,
        limit: LIST_DESCRIPTIONS.limit,
      }),
      responses: {
        ...ok('Payouts.', closed({ items: { type: 'array', items: PAYOUT } }), { items: [PAYOUT_EXAMPLE] }),
        '400': BAD_QUERY,
      },
    }),
    getPayout: op({
      operationId: 'getPayout',
      tags: [TAG.books],
      summary: 'Get a payout with its exchanges with the bank',
      description:
        'A payout still `sending` or `pending` is asked about at the bank first (transfer status, 36), unless another instance is asking.',
      parameters: [payoutId],
      responses: {
        ...ok('The payout.', PAYOUT_WITH_EXCHANGES, { ...PAYOUT_EXAMPLE, exchanges: [] }),
        '400': BAD_PATH,
        '404': notFound('payout'),
      },
    }),
    approvePayout: decide('approve'),
    rejectPayout: decide('reject'),
  } satisfies Record<string, Operation>;
}

import { Readable } from 'node:stream';
import type { FastifyInstance } from 'fastify';
import { z } from 'zod';
import { type LedgerService, ledgerEntryView } from '../../books/ledger-service.ts';
import { REPORT_LAYOUTS, reportFileName } from '../../books/settlement-report.ts';
import { type SettlementService, settlementEntriesView, settlementView } from '../../books/settlement-service.ts';
import { notFound as notFoundError } from '../../domain-error.ts';
import type { PayoutService } from '../../payouts/payout-service.ts';
import { LEDGER_KINDS } from '../../records/book-records.ts';
import { callerOf, scopeCovers } from '../admin-auth.ts';
import { idParams, parseAdminBody, parseWith } from '../admin-body.ts';
import {
  BAD_PATH,
  BAD_QUERY,
  badRequest,
  body,
  conflict,
  DATE_TIME,
  idParam,
  LIST_DESCRIPTIONS,
  notFound,
  ok,
  op,
  T,
  TAG,
} from '../openapi/admin-kit.ts';
import { MERCHANT_EXAMPLE } from '../openapi/admin-schemas.ts';
import { closed, fromZod, type JsonSchema, nullable, type Operation, queryParameters } from '../openapi/kit.ts';
import { documentedRoute, type RouteDocs } from '../openapi/route-docs.ts';
import { ProblemError } from '../problem.ts';

export const ledgerQuery = z.strictObject({
  merchantId: z.string().max(64).optional(),
  referenceNo: z.string().max(64).optional(),
  kind: z.enum(LEDGER_KINDS).optional(),
  since: z.iso.datetime({ offset: true }).optional(),
  until: z.iso.datetime({ offset: true }).optional(),
  limit: z.coerce.number().int().min(1).max(500).default(50),
  cursor: z.string().max(512).optional(),
});

/** `full=true`: the whole journal (docs/books.md#verification); else what was written since the last clean run. */
export const verifyQuery = z.strictObject({ full: z.enum(['true', 'false']).optional() });

/** `layout=spreadsheet`: a summary above the table, digit-only references as text (docs/books.md#the-report). */
export const reportQuery = z.strictObject({ layout: z.enum(REPORT_LAYOUTS).optional() });

export const settlementRunBody = z.strictObject({
  merchantId: z.string().min(1).max(64).optional(),
  cutoff: z.iso.datetime({ offset: true }).optional(),
});

export const settlementListQuery = z.strictObject({
  merchantId: z.string().max(64).optional(),
  status: z.enum(['open', 'paying', 'paid']).optional(),
  limit: z.coerce.number().int().min(1).max(500).default(50),
});

/** A settlement recorded paid by hand, with the bank's reference of the transfer. */
export const payoutBody = z.strictObject({
  bankReference: z
    .string()
    .trim()
    .min(1)
    .max(64)
    .regex(/^[\w./:-]+$/, 'letters, digits and . / : - _ only'),
});
/** `{}`: pay it out through the bank (docs/payouts.md); `{bankReference}`: record it paid by hand. */
export const payoutRequestBody = payoutBody.partial();

const timeOf = (iso: string | undefined) => (iso === undefined ? undefined : Date.parse(iso));

/** The books: balances, the ledger and its verification, settlements and payouts (docs/books.md). */
export function adminBookRoutes(
  app: FastifyInstance,
  deps: { ledger: LedgerService; settlements: SettlementService; payouts: PayoutService; docs: RouteDocs },
) {
  const { ledger, settlements, payouts } = deps;
  const config = { api: 'admin' as const };
  const ops = bookOperations();

  documentedRoute(app, deps.docs, {
    method: 'get',
    url: '/merchants/:id/balance',
    config,
    operation: ops.getMerchantBalance,
    handler: async (request) => {
      const { id } = parseWith(idParams, request.params, 'invalid path');
      return ledger.balance(callerOf(request), id);
    },
  });

  documentedRoute(app, deps.docs, {
    method: 'get',
    url: '/ledger/entries',
    config,
    operation: ops.listLedgerEntries,
    handler: async (request) => {
      const q = parseWith(ledgerQuery, request.query, 'invalid query');
      const p = await ledger.entries(
        callerOf(request),
        {
          merchantId: q.merchantId,
          referenceNo: q.referenceNo,
          kind: q.kind,
          since: timeOf(q.since),
          until: timeOf(q.until),
        },
        { limit: q.limit, cursor: q.cursor },
      );
      return { items: p.items.map(ledgerEntryView), nextCursor: p.nextCursor };
    },
  });

  documentedRoute(app, deps.docs, {
    method: 'get',
    url: '/ledger/verify',
    config,
    operation: ops.verifyLedger,
    handler: async (request) => {
      const q = parseWith(verifyQuery, request.query, 'invalid query');
      return q.full === 'true' ? ledger.verifyFull() : ledger.verify();
    },
  });

  documentedRoute(app, deps.docs, {
    method: 'post',
    url: '/ledger/verifications',
    config,
    operation: ops.startFullVerification,
    handler: async (_request, reply) => reply.code(202).send(ledger.startFull()),
  });

  documentedRoute(app, deps.docs, {
    method: 'get',
    url: '/ledger/verifications/:id',
    config,
    operation: ops.getFullVerification,
    handler: async (request) => {
      const { id } = parseWith(idParams, request.params, 'invalid path');
      // A job is kept by the instance that runs it, until it stops.
      const job = ledger.job(id);
      if (!job) throw notFoundError('verification');
      return job;
    },
  });

  documentedRoute(app, deps.docs, {
    method: 'post',
    url: '/settlements',
    config,
    operation: ops.runSettlements,
    handler: async (request, reply) => {
      const b = parseAdminBody(request, settlementRunBody, true);
      const items = await settlements.run({ merchantId: b.merchantId, cutoff: timeOf(b.cutoff) });
      return reply.code(201).send({ items: items.map(settlementView) });
    },
  });

  documentedRoute(app, deps.docs, {
    method: 'get',
    url: '/settlements',
    config,
    operation: ops.listSettlements,
    handler: async (request) => {
      const q = parseWith(settlementListQuery, request.query, 'invalid query');
      const items = await settlements.list(callerOf(request), { merchantId: q.merchantId, status: q.status }, q.limit);
      return { items: items.map(settlementView) };
    },
  });

  documentedRoute(app, deps.docs, {
    method: 'get',
    url: '/settlements/:id',
    config,
    operation: ops.getSettlement,
    handler: async (request) => {
      const { id } = parseWith(idParams, request.params, 'invalid path');
      const { settlement, entries } = await settlements.show(callerOf(request), id);
      return { ...settlementView(settlement), entries: settlementEntriesView(entries) };
    },
  });

  documentedRoute(app, deps.docs, {
    method: 'get',
    url: '/settlements/:id/report.csv',
    config,
    operation: ops.getSettlementReport,
    handler: async (request, reply) => {
      const { id } = parseWith(idParams, request.params, 'invalid path');
      const { layout } = parseWith(reportQuery, request.query, 'invalid query');
      const { settlement, csv } = await settlements.report(callerOf(request), id, layout);
      return reply
        .type('text/csv; charset=utf-8')
        .header('content-disposition', `attachment; filename="${reportFileName(settlement.id, layout)}"`)
        .send(Readable.from(csv));
    },
  });

  documentedRoute(app, deps.docs, {
    method: 'post',
    url: '/settlements/:id/payout',
    config,
    operation: ops.payOutSettlement,
    handler: async (request, reply) => {
      const { id } = parseWith(idParams, request.params, 'invalid path');
      const b = parseAdminBody(request, payoutRequestBody);
      const caller = callerOf(request);
      if (b.bankReference !== undefined) {
        // Marking by hand stays an admin's act (docs/books.md#settlements); `operate` may only pay through the bank.
        if (caller.kind === 'operator' && !scopeCovers(caller.scope, 'admin')) {
          throw new ProblemError(
            403,
            'Forbidden',
            `the key ${caller.keyName} has the ${caller.scope} scope; this needs admin`,
          );
        }
        return settlementView(await settlements.payout(id, b.bankReference));
      }
      const paid = await payouts.paySettlement(caller.kind === 'operator' ? caller.keyId : 'portal', id);
      return reply.code(202).send(settlementView(paid.settlement));
    },
  });
}

const MONEY: JsonSchema = { type: 'string', pattern: '^-?(0|[1-9]\\d*)\\.\\d{2}$' };
const BALANCE = closed({
  merchantId: { type: 'string' },
  currency: { const: 'IDR' },
  pending: { ...MONEY, description: 'Owed to the merchant, not yet in a settlement.' },
  settling: { ...MONEY, description: 'In settlements not yet paid out.' },
  paidOut: { ...MONEY, description: 'Paid out to date.' },
  fees: { ...MONEY, description: 'Fees charged to date.' },
});
const LEDGER_ENTRY: JsonSchema = {
  type: 'object',
  additionalProperties: false,
  required: ['id', 'at', 'kind', 'merchantId', 'lines'],
  properties: {
    id: { type: 'string', description: 'Increasing in the order entries were written.' },
    at: DATE_TIME,
    kind: {
      enum: [...LEDGER_KINDS],
    },
    merchantId: { type: 'string' },
    providerId: { type: 'string', description: 'Payments and refunds: the bank or acquirer that collected it.' },
    referenceNo: {
      type: 'string',
      description: 'Payments and refunds: the transaction’s. Disbursements: the transfer’s `referenceNo`.',
    },
    refundNo: { type: 'string', description: 'Refunds: the refund’s own number.' },
    settlementId: { type: 'string', description: 'Settlements and payouts.' },
    lines: {
      type: 'array',
      items: closed({
        account: {
          type: 'string',
          description:
            '`provider:<id>`, `merchant:<id>:pending`, `merchant:<id>:settling`, `fees`, `cash` or `transfers` (disbursements on their way out).',
        },
        debit: MONEY,
        credit: MONEY,
      }),
    },
  },
};
const SETTLEMENT_PROPERTIES: Record<string, JsonSchema> = {
  id: { type: 'string' },
  merchantId: { type: 'string' },
  cutoff: { ...DATE_TIME, description: 'Every entry before it that no settlement had taken is in this one.' },
  status: {
    enum: ['open', 'paying', 'paid'],
    description: '`paying`: a payout through the bank is under way or awaits approval.',
  },
  count: { type: 'integer', description: 'Payments in it.' },
  gross: MONEY,
  fees: MONEY,
  refunds: MONEY,
  disbursed: { ...MONEY, description: 'Disbursements it took: their amounts and fees.' },
  returned: { ...MONEY, description: 'Disbursements that failed, given back (amounts and fees).' },
  net: { ...MONEY, description: 'gross − fees − refunds − disbursed + returned: what is paid out.' },
  createdAt: DATE_TIME,
  paidAt: nullable(DATE_TIME),
  bankReference: nullable({ type: 'string' }),
  payoutId: { ...nullable({ type: 'string' }), description: 'Its latest payout through the bank.' },
  lastPayoutError: { ...nullable({ type: 'string' }), description: 'Why its latest payout failed, when it did.' },
};
export const SETTLEMENT = closed(SETTLEMENT_PROPERTIES);
const PROBLEM_ITEM = {
  type: 'object',
  required: ['type', 'message'],
  properties: {
    type: {
      enum: [
        'unbalanced',
        'wrong_lines',
        'missing_payment',
        'duplicate_payment',
        'payment_mismatch',
        'no_cause',
        'account_balance',
        'running_totals',
        'unsettled_queue',
        'merchant_balance',
      ],
    },
    message: { type: 'string' },
    entryId: { type: 'string' },
    referenceNo: { type: 'string' },
    merchantId: { type: 'string' },
  },
} satisfies JsonSchema;

const VERIFICATION = closed(
  {
    ok: { type: 'boolean' },
    entries: { type: 'integer', description: 'Entries the journal holds, as far as verified.' },
    problems: { type: 'array', items: PROBLEM_ITEM },
    mode: { enum: ['incremental', 'full'] },
    read: { type: 'integer', description: 'Incremental: the entries read this time.' },
    since: { type: 'string', description: 'Incremental: read after this entry id.' },
  },
  { required: ['ok', 'entries', 'problems', 'mode'] },
);
const VERIFICATION_JOB = closed({
  id: { type: 'string' },
  state: { enum: ['running', 'done', 'failed'] },
  startedAt: DATE_TIME,
  finishedAt: nullable(DATE_TIME),
  entriesRead: { type: 'integer', description: 'Entries read so far.' },
  result: { ...nullable(VERIFICATION), description: 'When done: what it found.' },
  error: { ...nullable({ type: 'string' }), description: 'When failed: why.' },
});
const VERIFICATION_JOB_EXAMPLE = {
  id: 'ver_7f3c9a1e2b4d4c6f8a0b1c2d3e4f5a6b',
  state: 'running',
  startedAt: T,
  finishedAt: null,
  entriesRead: 0,
  result: null,
  error: null,
};

const M = MERCHANT_EXAMPLE.id;
const REF = 'QR2601151030000001';
export const BALANCE_EXAMPLE = {
  merchantId: M,
  currency: 'IDR',
  pending: '99300.00',
  settling: '0.00',
  paidOut: '248250.00',
  fees: '2450.00',
};
export const LEDGER_ENTRY_EXAMPLE = {
  id: '41',
  at: T,
  kind: 'payment',
  merchantId: M,
  providerId: 'b1c2d3e4-0000-4000-8000-000000000001',
  referenceNo: REF,
  lines: [
    { account: 'provider:b1c2d3e4-0000-4000-8000-000000000001', debit: '100000.00', credit: '0.00' },
    { account: `merchant:${M}:pending`, debit: '0.00', credit: '99300.00' },
    { account: 'fees', debit: '0.00', credit: '700.00' },
  ],
};
export const SETTLEMENT_EXAMPLE = {
  id: 'stl_7f3c9a1e2b4d4c6f8a0b1c2d3e4f5a6b',
  merchantId: M,
  cutoff: T,
  status: 'open',
  count: 1,
  gross: '100000.00',
  fees: '700.00',
  refunds: '0.00',
  disbursed: '0.00',
  returned: '0.00',
  net: '99300.00',
  createdAt: T,
  paidAt: null,
  bankReference: null,
  payoutId: null,
  lastPayoutError: null,
};

/** What the admin API's document says of each route of this area, by operationId. */
function bookOperations() {
  const settlementId = idParam('settlement');
  return {
    getMerchantBalance: op({
      operationId: 'getMerchantBalance',
      tags: [TAG.books],
      summary: 'A merchant’s balance',
      description: 'From the ledger: pending + settling + paidOut = its payments less fees, refunds and disbursements.',
      parameters: [idParam('merchant')],
      responses: { ...ok('The balance.', BALANCE, BALANCE_EXAMPLE), '400': BAD_PATH, '404': notFound('merchant') },
    }),
    listLedgerEntries: op({
      operationId: 'listLedgerEntries',
      tags: [TAG.books],
      summary: 'List ledger entries',
      description: 'Newest first. Every entry balances: its debits equal its credits.',
      parameters: queryParameters(ledgerQuery, {
        ...LIST_DESCRIPTIONS,
        kind: 'Only entries of this kind.',
        since: 'Entries at or after this time.',
        until: 'Entries before this time.',
      }),
      responses: {
        ...ok(
          'A page of entries.',
          closed({
            items: { type: 'array', items: LEDGER_ENTRY },
            nextCursor: {
              ...nullable({ type: 'string' }),
              description: 'Pass as `cursor` for the next page; null at the end.',
            },
          }),
          { items: [LEDGER_ENTRY_EXAMPLE], nextCursor: null },
        ),
        '400': BAD_QUERY,
      },
    }),
    verifyLedger: op({
      operationId: 'verifyLedger',
      tags: [TAG.books],
      summary: 'Check the invariants of the books',
      description:
        'By default, what was written since the last clean verification: each new entry balances (no negative line), names its provider and has its cause; each new payment entry is its transaction’s, with its amount and fee; every transaction paid since has its entry; each merchant touched has running totals equal to its entries. A clean run keeps where it got to, so the next reads only what is new. `full=true` checks the whole journal as well: each merchant’s balance equals the sum of its accounts’ lines, and its pending + settling + paidOut equals its payments less fees, refunds and disbursements (amounts and fees); `transfers` holds the disbursements on their way. Always 200: `ok` says whether a problem was found.',
      parameters: queryParameters(verifyQuery, {
        full: '`true`: the whole journal, every invariant (takes longer as the books grow; `POST /ledger/verifications` runs it in the background).',
      }),
      responses: {
        ...ok('The verification.', VERIFICATION, {
          ok: true,
          entries: 42,
          problems: [],
          mode: 'incremental',
          read: 3,
          since: '39',
        }),
        '400': BAD_QUERY,
      },
    }),
    startFullVerification: op({
      operationId: 'startFullVerification',
      tags: [TAG.books],
      summary: 'Verify the whole journal in the background',
      description:
        'Starts the full verification (every invariant, as `GET /ledger/verify?full=true`) as a job of the instance that answers, and answers it at once; a job already running there is answered instead of a second. Ask about it with `GET /ledger/verifications/{id}` on the same instance: `entriesRead` grows as it reads, and `result` holds the verification when `state` is `done`. Jobs live in the instance’s memory (the newest 10), not in the database.',
      responses: {
        ...ok('The job.', VERIFICATION_JOB, { ...VERIFICATION_JOB_EXAMPLE }, '202'),
      },
    }),
    getFullVerification: op({
      operationId: 'getFullVerification',
      tags: [TAG.books],
      summary: 'A background verification',
      parameters: [idParam('verification')],
      responses: {
        ...ok('The job.', VERIFICATION_JOB, {
          ...VERIFICATION_JOB_EXAMPLE,
          state: 'done',
          finishedAt: T,
          entriesRead: 42,
          result: { ok: true, entries: 42, problems: [], mode: 'full' },
        }),
        '400': BAD_PATH,
        '404': notFound('verification'),
      },
    }),
    runSettlements: op({
      operationId: 'runSettlements',
      tags: [TAG.books],
      summary: 'Settle merchants now',
      description:
        'For each merchant (or the one named) whose unsettled payments and refunds before `cutoff` add up to more than zero, one settlement takes exactly those entries. An entry is in at most one settlement.',
      requestBody: body(
        fromZod(settlementRunBody, {
          merchantId: 'Only this merchant.',
          cutoff: 'Entries before this time (default: now; never later than now).',
        }),
        { merchantId: M },
        { optional: true },
      ),
      responses: {
        ...ok(
          'The settlements made (maybe none).',
          closed({ items: { type: 'array', items: SETTLEMENT } }),
          { items: [SETTLEMENT_EXAMPLE] },
          '201',
        ),
        '400': badRequest('A field is invalid, or the cutoff is in the future.', [
          'cutoff: must not be later than now',
        ]),
        '404': notFound('merchant'),
      },
    }),
    listSettlements: op({
      operationId: 'listSettlements',
      tags: [TAG.books],
      summary: 'List settlements',
      description: 'Newest first.',
      parameters: queryParameters(settlementListQuery, { ...LIST_DESCRIPTIONS, status: 'Only open or paid ones.' }),
      responses: {
        ...ok('Settlements.', closed({ items: { type: 'array', items: SETTLEMENT } }), {
          items: [SETTLEMENT_EXAMPLE],
        }),
        '400': BAD_QUERY,
      },
    }),
    getSettlement: op({
      operationId: 'getSettlement',
      tags: [TAG.books],
      summary: 'Show a settlement with its entries',
      parameters: [settlementId],
      responses: {
        ...ok(
          'The settlement.',
          closed({ ...SETTLEMENT_PROPERTIES, entries: { type: 'array', items: LEDGER_ENTRY } }),
          { ...SETTLEMENT_EXAMPLE, entries: [LEDGER_ENTRY_EXAMPLE] },
        ),
        '400': BAD_PATH,
        '404': notFound('settlement'),
      },
    }),
    getSettlementReport: op({
      operationId: 'getSettlementReport',
      tags: [TAG.books],
      summary: 'The settlement report (CSV)',
      description:
        'Header `referenceNo,partnerReferenceNo,kind,paidAt,amount,fee,net,providerId,providerReference,refundNo,method,providerName`; one row per payment and refund (a refund’s amount and net negative, its fee 0.00, `paidAt` the refund’s time, `refundNo` its number); `method` `qris` or `va`; times in +07:00; the sums are the settlement’s. `layout=spreadsheet` is for people: a UTF-8 byte order mark, a summary (`label,value` lines: the settlement, its merchant, cutoff, status, payments, gross, fees, refunds, disbursed, returned, net, payout) and an empty line above the same header, and references made only of digits written `="…"` so that a spreadsheet keeps them as text.',
      parameters: [
        settlementId,
        ...queryParameters(reportQuery, {
          layout:
            '`data` (default): the header on the first line, for programs. `spreadsheet`: with a summary, for people.',
        }),
      ],
      responses: {
        '200': {
          description: 'The report.',
          content: {
            'text/csv': {
              schema: { type: 'string' },
              examples: {
                example: {
                  value: `referenceNo,partnerReferenceNo,kind,paidAt,amount,fee,net,providerId,providerReference,refundNo,method,providerName\r\n${REF},order-1,payment,2026-01-15T10:30:00+07:00,100000.00,700.00,99300.00,b1c2d3e4-0000-4000-8000-000000000001,ACQ-1,,qris,Acquirer One\r\n`,
                },
              },
            },
          },
        },
        '400': BAD_PATH,
        '404': notFound('settlement'),
      },
    }),
    payOutSettlement: op({
      operationId: 'payOutSettlement',
      tags: [TAG.books],
      summary: 'Pay a settlement out through the bank, or record it paid',
      description:
        '`{}`: transfers its `net` to the merchant’s verified `payoutAccount` through the payout bank (docs/payouts.md): 202 with the settlement `paying` (or `paid` when the bank confirmed at once) and its `payoutId`; a refused transfer leaves it `open` with `lastPayoutError`. `{bankReference}` (scope `admin`): records an `open` settlement paid by hand, 200.',
      parameters: [settlementId],
      requestBody: body(
        fromZod(payoutRequestBody, {
          bankReference: 'The bank’s reference of a transfer made by hand; absent: pay through the bank.',
        }),
        { bankReference: 'TRF-20260115-0001' },
      ),
      responses: {
        ...ok('Recorded paid by hand (`bankReference`).', SETTLEMENT, {
          ...SETTLEMENT_EXAMPLE,
          status: 'paid',
          paidAt: T,
          bankReference: 'TRF-20260115-0001',
        }),
        ...ok(
          'The transfer was sent (`{}`): `paying`, or `paid` when the bank confirmed at once.',
          SETTLEMENT,
          { ...SETTLEMENT_EXAMPLE, status: 'paying', payoutId: 'po_5d1e0c7a9b2f4e3d8c6a1b0f9e8d7c6b' },
          '202',
        ),
        '400': badRequest('bankReference is invalid.', [
          'bankReference: Too small: expected string to have >=1 characters',
        ]),
        '404': notFound('settlement'),
        '409': conflict(
          'Paid out already, being paid out, no verified payoutAccount (or its name is not the verified one), or no payout bank: nothing was sent.',
          'settlement stl_… was paid out already (bank reference TRF-20260115-0001)',
        ),
      },
    }),
  } satisfies Record<string, Operation>;
}

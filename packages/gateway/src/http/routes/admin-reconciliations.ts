import { isJsonObject, mediaType, parseJsonBody } from '@snapgate/snap';
import type { FastifyInstance } from 'fastify';
import { z } from 'zod';
import type { ReconciliationService } from '../../books/reconciliation-service.ts';
import type { ReconciliationRecord, ReconciliationResolution } from '../../store/store.ts';
import { idParams, parseWith } from '../admin-body.ts';
import {
  ADMIN,
  BAD_PATH,
  BAD_QUERY,
  badRequest,
  conflict,
  DATE_TIME,
  idParam,
  notFound,
  ok,
  op,
  T,
  TAG,
} from '../openapi/admin-kit.ts';
import { closed, type JsonSchema, type PathItem, pathParameter, queryParameters } from '../openapi/kit.ts';
import { badRequest as badRequestError } from '../problem.ts';
import { headerValue, rawBodyOf } from '../raw-body.ts';

/** A provider's report may be large: up to 8 MiB (some 100,000 lines). */
export const REPORT_LIMIT_BYTES = 8 * 1024 * 1024;

export const reconciliationListQuery = z.strictObject({
  limit: z.coerce.number().int().min(1).max(500).default(50),
});
const lineParams = z.object({ id: z.string().max(64), line: z.coerce.number().int().min(1).max(1_000_000) });

export const runView = (run: ReconciliationRecord, resolutions: ReconciliationResolution[] = []) => ({
  id: run.id,
  providerId: run.providerId,
  createdAt: new Date(run.createdAt).toISOString(),
  from: run.from,
  to: run.to,
  lines: run.lines,
  matched: run.matched,
  problems: run.problems.map((p) => {
    const r = resolutions.find((x) => x.line === p.line);
    return { ...p, ...(r ? { resolvedAt: new Date(r.resolvedAt).toISOString() } : {}) };
  }),
});

/** Reconciliation against a provider's report (docs/books.md#reconciliation). */
export function adminReconciliationRoutes(app: FastifyInstance, deps: { reconciliations: ReconciliationService }) {
  const { reconciliations } = deps;
  const config = { api: 'admin' as const };

  app.post('/providers/:id/reconciliations', { config, bodyLimit: REPORT_LIMIT_BYTES }, async (request, reply) => {
    const { id } = parseWith(idParams, request.params, 'invalid path');
    const type = mediaType(headerValue(request, 'content-type') ?? '');
    const raw = rawBodyOf(request);
    let report: { csv: string } | { json: unknown };
    if (type === 'text/csv') {
      const text = new TextDecoder('utf-8', { fatal: true, ignoreBOM: false });
      try {
        report = { csv: text.decode(raw) };
      } catch {
        throw badRequestError('invalid report', ['body: the CSV is not UTF-8 text']);
      }
    } else if (type === 'application/json') {
      const value = parseJsonBody(raw);
      if (!isJsonObject(value)) throw badRequestError('invalid report', ['body: a JSON object {"items": [...]}']);
      report = { json: value };
    } else {
      throw badRequestError('Content-Type must be text/csv or application/json');
    }
    return reply.code(201).send(runView(await reconciliations.run(id, report)));
  });

  app.get('/providers/:id/reconciliations', { config }, async (request) => {
    const { id } = parseWith(idParams, request.params, 'invalid path');
    const q = parseWith(reconciliationListQuery, request.query, 'invalid query');
    return { items: (await reconciliations.list(id, q.limit)).map((r) => runView(r)) };
  });

  app.get('/reconciliations/:id', { config }, async (request) => {
    const { id } = parseWith(idParams, request.params, 'invalid path');
    const { run, resolutions } = await reconciliations.show(id);
    return runView(run, resolutions);
  });

  app.post('/reconciliations/:id/problems/:line/apply', { config }, async (request) => {
    const { id, line } = parseWith(lineParams, request.params, 'invalid path');
    const r = await reconciliations.apply(id, line, request.id);
    return {
      reconciliationId: r.reconciliationId,
      line: r.line,
      referenceNo: r.referenceNo,
      resolvedAt: new Date(r.resolvedAt).toISOString(),
    };
  });
}

const PROBLEM: JsonSchema = {
  type: 'object',
  additionalProperties: false,
  required: ['line', 'type'],
  properties: {
    line: {
      anyOf: [{ type: 'integer' }, { type: 'null' }],
      description:
        'The item’s 1-based position in the report (a CSV header is not counted); null for `missing_at_provider`.',
    },
    type: { enum: ['missing_at_gateway', 'missing_at_provider', 'amount_mismatch', 'status_mismatch', 'duplicate'] },
    referenceNo: { type: 'string', description: 'snapgate’s, whenever it knows the transaction.' },
    expected: { type: 'string', description: 'What snapgate has (a status or an amount).' },
    actual: { type: 'string', description: 'What the report says.' },
    resolvedAt: { ...DATE_TIME, description: 'When the problem was applied.' },
  },
};
const RUN = closed({
  id: { type: 'string' },
  providerId: { type: 'string' },
  createdAt: DATE_TIME,
  from: { type: 'string', format: 'date', description: 'The first Jakarta calendar day the report covers.' },
  to: { type: 'string', format: 'date', description: 'The last.' },
  lines: { type: 'integer' },
  matched: { type: 'integer', description: 'Lines with no problem.' },
  problems: { type: 'array', items: PROBLEM },
});
const PROVIDER_ID = 'b1c2d3e4-0000-4000-8000-000000000001';
const RUN_EXAMPLE = {
  id: 'rec_0d5b1f8e2c3a4b6d9e7f8a1b2c3d4e5f',
  providerId: PROVIDER_ID,
  createdAt: T,
  from: '2026-01-15',
  to: '2026-01-15',
  lines: 3,
  matched: 1,
  problems: [
    { line: 2, type: 'missing_at_gateway', referenceNo: 'QR2601151030000002', expected: '01', actual: '00' },
    { line: 3, type: 'amount_mismatch', referenceNo: 'QR2601151030000003', expected: '10000.00', actual: '1000.00' },
  ],
};
const REPORT_CSV =
  'referenceNo,providerReference,amount,paidAt,status\nQR2601151030000001,ACQ-1,100000.00,2026-01-15T10:30:00+07:00,00\n';

/** The OpenAPI path items of these routes. */
export function reconciliationPaths(): Record<string, PathItem> {
  const runId = idParam('reconciliation');
  return {
    [`${ADMIN}/providers/{id}/reconciliations`]: {
      post: op({
        operationId: 'reconcileProvider',
        tags: [TAG.books],
        summary: 'Reconcile a provider’s report',
        description:
          'The provider’s report of paid transactions, as `text/csv` (header `referenceNo,providerReference,amount,paidAt,status`; `referenceNo` may be empty when `providerReference` identifies the payment; `status` `00` unless stated) or JSON `{"items": [...]}` with the same fields (`amount` a decimal string). Up to 8 MiB. Matching uses `referenceNo`, else `providerReference` (the acquirer’s `originalReferenceNo`, the bank’s `paymentRequestId`). The run is kept.',
        parameters: [idParam('provider')],
        requestBody: {
          required: true,
          content: {
            'text/csv': { schema: { type: 'string' }, examples: { example: { value: REPORT_CSV } } },
            'application/json': {
              schema: closed({
                items: {
                  type: 'array',
                  items: {
                    type: 'object',
                    required: ['amount', 'paidAt'],
                    properties: {
                      referenceNo: { type: 'string' },
                      providerReference: { type: 'string' },
                      amount: { type: 'string', pattern: '^(0|[1-9]\\d*)\\.\\d{2}$' },
                      paidAt: DATE_TIME,
                      status: { type: 'string', pattern: '^\\d{2}$' },
                    },
                  },
                },
              }),
              examples: {
                example: {
                  value: {
                    items: [
                      {
                        referenceNo: 'QR2601151030000001',
                        providerReference: 'ACQ-1',
                        amount: '100000.00',
                        paidAt: '2026-01-15T10:30:00+07:00',
                      },
                    ],
                  },
                },
              },
            },
          },
        },
        responses: {
          ...ok('The run: every line matched or a problem.', RUN, RUN_EXAMPLE, '201'),
          '400': badRequest('The report cannot be read: the first problem is named.', [
            'line 3: amount "12.5" is not a decimal with two fraction digits',
          ]),
          '404': notFound('provider'),
        },
      }),
      get: op({
        operationId: 'listReconciliations',
        tags: [TAG.books],
        summary: 'A provider’s reconciliation runs',
        description: 'Newest first.',
        parameters: [idParam('provider'), ...queryParameters(reconciliationListQuery, { limit: 'At most this many.' })],
        responses: {
          ...ok('The runs.', closed({ items: { type: 'array', items: RUN } }), { items: [RUN_EXAMPLE] }),
          '400': BAD_QUERY,
          '404': notFound('provider'),
        },
      }),
    },
    [`${ADMIN}/reconciliations/{id}`]: {
      get: op({
        operationId: 'getReconciliation',
        tags: [TAG.books],
        summary: 'Show a reconciliation run',
        description: 'A problem applied carries `resolvedAt`.',
        parameters: [runId],
        responses: { ...ok('The run.', RUN, RUN_EXAMPLE), '400': BAD_PATH, '404': notFound('reconciliation') },
      }),
    },
    [`${ADMIN}/reconciliations/{id}/problems/{line}/apply`]: {
      post: op({
        operationId: 'applyReconciliationProblem',
        tags: [TAG.books],
        summary: 'Apply a payment missing at the gateway',
        description:
          'For a `missing_at_gateway` problem on a transaction snapgate knows, still `01`/`02`/`03` with the reported amount: the payment is applied as if the provider had notified it (the acquirer’s notify or the bank’s payment flag): status `00`, its ledger entry, the merchant’s callback. Anything else, or applying twice, is 409. No body.',
        parameters: [runId, pathParameter(lineParams, 'line', 'The problem’s line.')],
        responses: {
          ...ok(
            'Applied.',
            closed({
              reconciliationId: { type: 'string' },
              line: { type: 'integer' },
              referenceNo: { type: 'string' },
              resolvedAt: DATE_TIME,
            }),
            { reconciliationId: RUN_EXAMPLE.id, line: 2, referenceNo: 'QR2601151030000002', resolvedAt: T },
          ),
          '400': BAD_PATH,
          '404': notFound('reconciliation'),
          '409': conflict('Not a payment that can be applied, or applied already.', 'line 2 was applied already'),
        },
      }),
    },
  };
}

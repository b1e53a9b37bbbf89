import { mediaType } from '@snapgate/snap';
import type { FastifyInstance } from 'fastify';
import { z } from 'zod';
import { MAX_LINES } from '../../books/reconciliation-report.ts';
import {
  FIRST_PROBLEMS,
  type ProblemPage,
  type ProblemView,
  type ReconciliationService,
} from '../../books/reconciliation-service.ts';
import type { ReconciliationRecord } from '../../records/book-records.ts';
import { callerOf } from '../admin-auth.ts';
import { idParams, listQuery, parseWith } from '../admin-body.ts';
import {
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
import { closed, type JsonSchema, nullable, type Operation, pathParameter, queryParameters } from '../openapi/kit.ts';
import { documentedRoute, type RouteDocs } from '../openapi/route-docs.ts';
import { badRequest as badRequestError } from '../problem.ts';
import { headerValue, rawBodyOf } from '../raw-body.ts';

/** A provider's report may be large: up to 8 MiB (some 100,000 lines of CSV). */
export const REPORT_LIMIT_BYTES = 8 * 1024 * 1024;

export const reconciliationListQuery = z.strictObject({
  limit: z.coerce.number().int().min(1).max(500).default(50),
});
/** `?cursor=&limit=` of a run's problems: a page as large as the first one by default. */
export const problemsQuery = listQuery.extend({
  limit: z.coerce.number().int().min(1).max(500).default(FIRST_PROBLEMS),
});
const lineParams = z.object({ id: z.string().max(64), line: z.coerce.number().int().min(1).max(1_000_000) });

/** A problem as the admin API shows it. */
export const problemView = ({ resolvedAt, ...found }: ProblemView) => ({
  ...found,
  ...(resolvedAt === undefined ? {} : { resolvedAt: new Date(resolvedAt).toISOString() }),
});

/** A run without its problems, as the list shows it: `problemCount` says how many it found. */
export const runSummaryView = (run: ReconciliationRecord) => ({
  id: run.id,
  providerId: run.providerId,
  createdAt: new Date(run.createdAt).toISOString(),
  from: run.from,
  to: run.to,
  lines: run.lines,
  matched: run.matched,
  problemCount: run.problemCount,
});

/** A run with a page of its problems (the first) and the cursor of the next page. */
export const runView = (run: ReconciliationRecord, problems: ProblemPage) => ({
  ...runSummaryView(run),
  problems: problems.items.map(problemView),
  nextCursor: problems.nextCursor,
});

/** Reconciliation against a provider's report (docs/books.md#reconciliation). */
export function adminReconciliationRoutes(
  app: FastifyInstance,
  deps: { reconciliations: ReconciliationService; docs: RouteDocs },
) {
  const { reconciliations } = deps;
  const config = { api: 'admin' as const };
  const ops = reconciliationOperations();

  documentedRoute(app, deps.docs, {
    method: 'post',
    url: '/providers/:id/reconciliations',
    config,
    bodyLimit: REPORT_LIMIT_BYTES,
    operation: ops.reconcileProvider,
    handler: async (request, reply) => {
      const { id } = parseWith(idParams, request.params, 'invalid path');
      const type = mediaType(headerValue(request, 'content-type') ?? '');
      const format = type === 'text/csv' ? 'csv' : type === 'application/json' ? 'json' : undefined;
      if (format === undefined) throw badRequestError('Content-Type must be text/csv or application/json');
      const { run, problems } = await reconciliations.run(id, { bytes: rawBodyOf(request), format });
      return reply.code(201).send(runView(run, problems));
    },
  });

  documentedRoute(app, deps.docs, {
    method: 'get',
    url: '/providers/:id/reconciliations',
    config,
    operation: ops.listReconciliations,
    handler: async (request) => {
      const { id } = parseWith(idParams, request.params, 'invalid path');
      const q = parseWith(reconciliationListQuery, request.query, 'invalid query');
      return { items: (await reconciliations.list(id, q.limit)).map(runSummaryView) };
    },
  });

  documentedRoute(app, deps.docs, {
    method: 'get',
    url: '/reconciliations/:id',
    config,
    operation: ops.getReconciliation,
    handler: async (request) => {
      const { id } = parseWith(idParams, request.params, 'invalid path');
      const { run, problems } = await reconciliations.show(id);
      return runView(run, problems);
    },
  });

  documentedRoute(app, deps.docs, {
    method: 'get',
    url: '/reconciliations/:id/problems',
    config,
    operation: ops.listReconciliationProblems,
    handler: async (request) => {
      const { id } = parseWith(idParams, request.params, 'invalid path');
      const q = parseWith(problemsQuery, request.query, 'invalid query');
      const { items, nextCursor } = await reconciliations.problems(id, q);
      return { items: items.map(problemView), nextCursor };
    },
  });

  documentedRoute(app, deps.docs, {
    method: 'post',
    url: '/reconciliations/:id/problems/:line/apply',
    config,
    operation: ops.applyReconciliationProblem,
    handler: async (request) => {
      const { id, line } = parseWith(lineParams, request.params, 'invalid path');
      const r = await reconciliations.apply(callerOf(request), id, line, request.id);
      return {
        reconciliationId: r.reconciliationId,
        line: r.line,
        referenceNo: r.referenceNo,
        resolvedAt: new Date(r.resolvedAt).toISOString(),
      };
    },
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
const RUN_FIELDS: Record<string, JsonSchema> = {
  id: { type: 'string' },
  providerId: { type: 'string' },
  createdAt: DATE_TIME,
  from: { type: 'string', format: 'date', description: 'The first Jakarta calendar day the report covers.' },
  to: { type: 'string', format: 'date', description: 'The last.' },
  lines: { type: 'integer' },
  matched: { type: 'integer', description: 'Lines with no problem.' },
  problemCount: { type: 'integer', description: 'How many problems the run found.' },
};
const NEXT_CURSOR: JsonSchema = {
  ...nullable({ type: 'string' }),
  description: 'Pass as `cursor` to `GET /admin/v1/reconciliations/{id}/problems` for the next page; null at the end.',
};
const RUN_SUMMARY = closed(RUN_FIELDS);
const RUN = closed({
  ...RUN_FIELDS,
  problems: {
    type: 'array',
    items: PROBLEM,
    description: `The first ${FIRST_PROBLEMS} problems, in order (line order, \`missing_at_provider\` last).`,
  },
  nextCursor: NEXT_CURSOR,
});
const PROBLEM_PAGE = closed({ items: { type: 'array', items: PROBLEM }, nextCursor: NEXT_CURSOR });
const PROVIDER_ID = 'b1c2d3e4-0000-4000-8000-000000000001';
const RUN_SUMMARY_EXAMPLE = {
  id: 'rec_0d5b1f8e2c3a4b6d9e7f8a1b2c3d4e5f',
  providerId: PROVIDER_ID,
  createdAt: T,
  from: '2026-01-15',
  to: '2026-01-15',
  lines: 3,
  matched: 1,
  problemCount: 2,
};
const PROBLEMS_EXAMPLE = [
  { line: 2, type: 'missing_at_gateway', referenceNo: 'QR2601151030000002', expected: '01', actual: '00' },
  { line: 3, type: 'amount_mismatch', referenceNo: 'QR2601151030000003', expected: '10000.00', actual: '1000.00' },
];
const RUN_EXAMPLE = { ...RUN_SUMMARY_EXAMPLE, problems: PROBLEMS_EXAMPLE, nextCursor: null };
const REPORT_CSV =
  'referenceNo,providerReference,amount,paidAt,status\nQR2601151030000001,ACQ-1,100000.00,2026-01-15T10:30:00+07:00,00\n';

/** What the admin API's document says of each route of this area, by operationId. */
function reconciliationOperations() {
  const runId = idParam('reconciliation');
  return {
    reconcileProvider: op({
      operationId: 'reconcileProvider',
      tags: [TAG.books],
      summary: 'Reconcile a provider’s report',
      description: `The provider’s report of paid transactions, as \`text/csv\` (header \`referenceNo,providerReference,amount,paidAt,status\`; \`referenceNo\` may be empty when \`providerReference\` identifies the payment; \`status\` \`00\` unless stated) or JSON \`{"items": [...]}\` with the same fields (\`amount\` a decimal string). Up to 8 MiB and ${MAX_LINES.toLocaleString('en')} lines; UTF-8, and no field may hold a NUL, another control character but tab, CR and LF, or an unpaired surrogate. Matching uses \`referenceNo\`, else \`providerReference\` (the acquirer’s \`originalReferenceNo\`, the bank’s \`paymentRequestId\`). The run is kept; the answer carries its first ${FIRST_PROBLEMS} problems, \`problemCount\`, and \`nextCursor\` for the rest.`,
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
        '400': badRequest('The report cannot be read: the first problem is named, with its line and field.', [
          'line 3: amount "12.5" is not a decimal with two fraction digits',
        ]),
        '404': notFound('provider'),
      },
    }),
    listReconciliations: op({
      operationId: 'listReconciliations',
      tags: [TAG.books],
      summary: 'A provider’s reconciliation runs',
      description:
        'Newest first; each run without its problems (`problemCount` says how many: read them with `GET /admin/v1/reconciliations/{id}/problems`).',
      parameters: [idParam('provider'), ...queryParameters(reconciliationListQuery, { limit: 'At most this many.' })],
      responses: {
        ...ok('The runs.', closed({ items: { type: 'array', items: RUN_SUMMARY } }), {
          items: [RUN_SUMMARY_EXAMPLE],
        }),
        '400': BAD_QUERY,
        '404': notFound('provider'),
      },
    }),
    getReconciliation: op({
      operationId: 'getReconciliation',
      tags: [TAG.books],
      summary: 'Show a reconciliation run',
      description: `With its first ${FIRST_PROBLEMS} problems and \`nextCursor\` for the rest. A problem applied carries \`resolvedAt\`.`,
      parameters: [runId],
      responses: { ...ok('The run.', RUN, RUN_EXAMPLE), '400': BAD_PATH, '404': notFound('reconciliation') },
    }),
    listReconciliationProblems: op({
      operationId: 'listReconciliationProblems',
      tags: [TAG.books],
      summary: 'A page of a reconciliation run’s problems',
      description:
        'In the run’s order (line order, `missing_at_provider` last), from the start or after `cursor`. A problem applied carries `resolvedAt`.',
      parameters: [
        runId,
        ...queryParameters(problemsQuery, {
          limit: 'Page size.',
          cursor: 'The `nextCursor` of the run or of the previous page.',
        }),
      ],
      responses: {
        ...ok('The page.', PROBLEM_PAGE, { items: PROBLEMS_EXAMPLE, nextCursor: null }),
        '400': BAD_QUERY,
        '404': notFound('reconciliation'),
      },
    }),
    applyReconciliationProblem: op({
      operationId: 'applyReconciliationProblem',
      tags: [TAG.books],
      summary: 'Apply a payment missing at the gateway',
      description:
        'For a `missing_at_gateway` problem on a transaction snapgate knows, still `01`/`02`/`03` with the reported amount: the payment is applied as if the provider had notified it (the acquirer’s notify or the bank’s payment flag): status `00`, its ledger entry, the merchant’s callback. Its status history names the run, the line and the admin key that applied it, and the callback carries no payer the report did not name. Anything else, or applying twice, is 409. No body.',
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
  } satisfies Record<string, Operation>;
}

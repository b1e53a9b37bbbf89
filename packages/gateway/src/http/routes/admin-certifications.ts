import type { FastifyInstance } from 'fastify';
import { z } from 'zod';
import type { CertificationService } from '../../certification/certification-service.ts';
import { CertificationRefused } from '../../certification/certify.ts';
import type { MerchantService } from '../../merchants/merchant-service.ts';
import type { CertificationRecord } from '../../records/records.ts';
import { idParams, parseAdminBody, parseWith } from '../admin-body.ts';
import {
  BAD_PATH,
  badRequest,
  body,
  conflict as conflictDoc,
  DATE_TIME,
  idParam,
  notFound as notFoundDoc,
  ok,
  op,
  problem,
  T,
  TAG,
} from '../openapi/admin-kit.ts';
import { MERCHANT_EXAMPLE } from '../openapi/admin-schemas.ts';
import { closed, fromZod, type JsonSchema, type Operation } from '../openapi/kit.ts';
import { documentedRoute, type RouteDocs } from '../openapi/route-docs.ts';
import { conflict, notFound, ProblemError } from '../problem.ts';

export const certifyBody = z.strictObject({
  qris: z.array(z.string().min(1).max(64)).length(2).optional(),
  va: z.string().min(1).max(64).optional(),
  create: z.boolean().optional(),
});

export interface AdminCertificationDeps {
  certifications: CertificationService;
  merchants: MerchantService;
  docs: RouteDocs;
}

/** A stored run without its report (the list). */
const summaryOf = (r: CertificationRecord) => ({
  id: r.id,
  merchantId: r.merchantId,
  startedAt: new Date(r.startedAt).toISOString(),
  finishedAt: new Date(r.finishedAt).toISOString(),
  passed: r.passed,
});

/** Webhook certification of a merchant's callback endpoint (sandbox mode only). */
export function adminCertificationRoutes(app: FastifyInstance, deps: AdminCertificationDeps) {
  const { certifications } = deps;
  const config = { api: 'admin' as const };
  const ops = certificationOperations();

  documentedRoute(app, deps.docs, {
    method: 'post',
    url: '/merchants/:id/certifications',
    config,
    operation: ops.certifyMerchant,
    handler: async (request, reply) => {
      const { id } = parseWith(idParams, request.params, 'invalid path');
      const b = parseAdminBody(request, certifyBody, true);
      if (certifications.mode !== 'sandbox')
        throw conflict('webhook certification runs only in sandbox mode: it pays and fails transactions');
      try {
        const report = await certifications.run({
          merchantId: id,
          qris: b.qris,
          va: b.va,
          create: b.create,
          requestId: request.id,
        });
        return reply.code(201).send(report);
      } catch (e) {
        if (!(e instanceof CertificationRefused)) throw e;
        if (e.problem === 'not-found') throw notFound('merchant');
        if (e.problem === 'production') throw conflict(e.message);
        throw new ProblemError(422, 'Unprocessable Content', e.message);
      }
    },
  });

  documentedRoute(app, deps.docs, {
    method: 'get',
    url: '/merchants/:id/certifications',
    config,
    operation: ops.listCertifications,
    handler: async (request) => {
      const { id } = parseWith(idParams, request.params, 'invalid path');
      await deps.merchants.get(id);
      return { items: (await certifications.list(id)).map(summaryOf) };
    },
  });

  documentedRoute(app, deps.docs, {
    method: 'get',
    url: '/certifications/:id',
    config,
    operation: ops.getCertification,
    handler: async (request) => {
      const { id } = parseWith(idParams, request.params, 'invalid path');
      const found = await certifications.get(id);
      if (!found) throw notFound('certification');
      return { ...summaryOf(found.record), report: found.report };
    },
  });
}

const CERTIFICATION_SCENARIO: JsonSchema = {
  type: 'object',
  required: ['group', 'id', 'title', 'kind', 'passed', 'reason', 'durationMs'],
  properties: {
    group: { type: 'string', description: '`qris`, `va`, `robustness` (true content) or `security` (forgeries).' },
    id: { type: 'string', description: 'The scenario, e.g. `wrong-signature`.' },
    title: { type: 'string' },
    kind: {
      enum: ['positive', 'negative'],
      description: '`positive`: must be acknowledged; `negative`: must be refused.',
    },
    passed: { type: 'boolean' },
    reason: { type: 'string', description: 'Why it failed, in plain words; `passed` when it passed.' },
    durationMs: { type: 'integer' },
    request: { type: 'object', description: 'The exact request sent: method, url, path, headers, body.' },
    response: { type: 'object', description: 'The answer: status (0 when none came), body.' },
  },
};
const CERTIFICATION_REPORT: JsonSchema = {
  type: 'object',
  required: [
    'id',
    'merchantId',
    'suite',
    'target',
    'startedAt',
    'finishedAt',
    'ok',
    'total',
    'passed',
    'failed',
    'results',
    'transactions',
  ],
  properties: {
    id: { type: 'string' },
    merchantId: { type: 'string' },
    suite: { const: 'webhook-certification' },
    target: { type: 'string' },
    startedAt: DATE_TIME,
    finishedAt: DATE_TIME,
    durationMs: { type: 'integer' },
    ok: { type: 'boolean', description: 'True when every scenario passed.' },
    total: { type: 'integer' },
    passed: { type: 'integer' },
    failed: { type: 'integer' },
    results: { type: 'array', items: CERTIFICATION_SCENARIO },
    transactions: {
      type: 'array',
      description: 'The sandbox transactions certified with, as they ended: a QRIS paid, a QRIS failed, a VA paid.',
      items: {
        type: 'object',
        required: ['role', 'referenceNo', 'partnerReferenceNo', 'kind', 'status'],
        properties: {
          role: { enum: ['qris-paid', 'qris-failed', 'va-paid'] },
          referenceNo: { type: 'string' },
          partnerReferenceNo: { type: 'string' },
          kind: { enum: ['qris', 'va'] },
          status: { type: 'string' },
        },
      },
    },
  },
};
const CERTIFICATION_SUMMARY = closed({
  id: { type: 'string' },
  merchantId: { type: 'string' },
  startedAt: DATE_TIME,
  finishedAt: DATE_TIME,
  passed: { type: 'boolean', description: 'True when every scenario passed.' },
});
const CERTIFICATION_EXAMPLE = {
  id: '5b8e2f4a-1c3d-4e5f-8a9b-0c1d2e3f4a5b',
  merchantId: MERCHANT_EXAMPLE.id,
  startedAt: T,
  finishedAt: T,
  passed: false,
};
const CERTIFICATION_REPORT_EXAMPLE = {
  suite: 'webhook-certification',
  target: `merchant ${MERCHANT_EXAMPLE.id} (https://shop.example/webhook/payment-qr-notification, https://shop.example/webhook/payment-va-notification)`,
  startedAt: T,
  durationMs: 412,
  total: 14,
  passed: 13,
  failed: 1,
  ok: false,
  results: [
    {
      group: 'security',
      id: 'wrong-signature',
      title: 'a forged notification that a failed QRIS was paid: a wrong signature',
      kind: 'negative',
      passed: false,
      reason: 'your endpoint accepted a callback with a forged signature: anyone can mark your orders paid',
      durationMs: 12,
    },
  ],
  id: CERTIFICATION_EXAMPLE.id,
  merchantId: MERCHANT_EXAMPLE.id,
  finishedAt: T,
  transactions: [
    { role: 'qris-paid', referenceNo: 'QR2601151030000001', partnerReferenceNo: 'order-1', kind: 'qris', status: '00' },
  ],
};

const UNPROCESSABLE = problem(
  '422',
  'It cannot run: the merchant has no callback URL, lacks two unpaid QRIS and an unpaid VA (create them from its own system, or send `create: true`), or a transaction named is not its own or not unpaid.',
  {
    example: {
      value: {
        type: 'about:blank',
        title: 'Unprocessable Content',
        status: 422,
        detail: `merchant ${MERCHANT_EXAMPLE.id} lacks an unpaid VA: create two QRIS and one VA from your own system first (so it knows the orders), or certify with create: true`,
      },
    },
  },
);

/** What the admin API's document says of each route of this area, by operationId. */
function certificationOperations() {
  return {
    certifyMerchant: op({
      operationId: 'certifyMerchant',
      tags: [TAG.merchants],
      summary: 'Certify a merchant’s callback endpoint (sandbox)',
      description:
        'Sandbox mode only. Pays one unpaid QRIS (03, then 00), fails another (06) and pays an unpaid VA (00) through real status changes, sending each true notification to the merchant’s callback URLs, then variants it must acknowledge (a repeat, unknown fields, PHP escapes, a charset) and forgeries it must refuse (wrong signature, another body’s signature, another merchant’s secret, a 10-minute-old timestamp, another X-PARTNER-ID, no signature, another key for `rsa-sha256`). Default transactions: the merchant’s newest unpaid ones. The run is stored.',
      parameters: [idParam('merchant')],
      requestBody: body(
        fromZod(certifyBody, {
          qris: 'Two unpaid QRIS referenceNos: the first is paid, the second fails. Default: the newest two.',
          va: 'An unpaid VA (referenceNo or virtual account number). Default: the newest.',
          create: 'Create the transactions itself (the merchant does not know their orders).',
        }),
        {},
        { optional: true },
      ),
      responses: {
        ...ok(
          'The run, stored: `ok` says whether every scenario passed.',
          CERTIFICATION_REPORT,
          CERTIFICATION_REPORT_EXAMPLE,
          '201',
        ),
        '400': badRequest('Invalid body: every problem is listed in `errors`.', [
          'qris: Too small: expected array to have >=2 items',
        ]),
        '404': notFoundDoc('merchant'),
        '409': conflictDoc(
          'Production mode: certification pays and fails transactions, so it runs only in sandbox mode.',
          'webhook certification runs only in sandbox mode: it pays and fails transactions',
        ),
        '422': UNPROCESSABLE,
      },
    }),
    listCertifications: op({
      operationId: 'listCertifications',
      tags: [TAG.merchants],
      summary: 'A merchant’s certification runs, newest first',
      parameters: [idParam('merchant')],
      responses: {
        ...ok('The runs, without their reports.', closed({ items: { type: 'array', items: CERTIFICATION_SUMMARY } }), {
          items: [CERTIFICATION_EXAMPLE],
        }),
        '400': BAD_PATH,
        '404': notFoundDoc('merchant'),
      },
    }),
    getCertification: op({
      operationId: 'getCertification',
      tags: [TAG.merchants],
      summary: 'One certification run, with its report',
      parameters: [idParam('certification')],
      responses: {
        ...ok(
          'The run and its report.',
          {
            ...CERTIFICATION_SUMMARY,
            required: [...(CERTIFICATION_SUMMARY.required as string[]), 'report'],
            properties: {
              ...(CERTIFICATION_SUMMARY.properties as Record<string, JsonSchema>),
              report: CERTIFICATION_REPORT,
            },
          },
          { ...CERTIFICATION_EXAMPLE, report: CERTIFICATION_REPORT_EXAMPLE },
        ),
        '400': BAD_PATH,
        '404': notFoundDoc('certification'),
      },
    }),
  } satisfies Record<string, Operation>;
}

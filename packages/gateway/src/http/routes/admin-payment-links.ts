import type { FastifyInstance } from 'fastify';
import { z } from 'zod';
import type { PaymentLinkService } from '../../payments/payment-links.ts';
import { listQuery, parseAdminBody, parseWith } from '../admin-body.ts';
import {
  BAD_PATH,
  BAD_QUERY,
  badRequest,
  body,
  conflict,
  idParam,
  notFound,
  ok,
  op,
  T,
  TAG,
  textParam,
} from '../openapi/admin-kit.ts';
import type { JsonSchema } from '../openapi/kit.ts';
import { documentedRoute, type RouteDocs } from '../openapi/route-docs.ts';

const linkParams = z.object({ id: z.string().max(64), linkId: z.string().max(64) });
const patchSchema = z.strictObject({ active: z.literal(false) });
/** Any JSON object: the service checks every field, and lists every problem at once. */
const createSchema = z.record(z.string(), z.unknown());

const MONEY: JsonSchema = {
  type: ['object', 'null'],
  additionalProperties: false,
  required: ['value', 'currency'],
  properties: {
    value: { type: 'string', pattern: '^\\d{1,15}\\.\\d{2}$' },
    currency: { type: 'string', enum: ['IDR'] },
  },
};
const METHODS: JsonSchema = {
  type: 'array',
  items: { type: 'string', pattern: '^(qris|va:[0-9A-Za-z]+|ewallet:[0-9A-Za-z_]+)$' },
  description: '`qris`, `va:<bankCode>`, `ewallet:<payOption>`.',
};
const LINK_PROPERTIES: Record<string, JsonSchema> = {
  id: { type: 'string', description: '`pl_` and 22 random base64url characters.' },
  merchantId: { type: 'string' },
  url: { type: 'string', format: 'uri', description: 'The page the payer opens: `<public url>/l/<id>`.' },
  description: { type: 'string' },
  amount: { ...MONEY, description: 'Null: the payer types the amount, within minAmount and maxAmount.' },
  minAmount: MONEY,
  maxAmount: MONEY,
  expiresAt: { type: ['string', 'null'], format: 'date-time' },
  singleUse: { type: 'boolean', description: 'Stops taking payments once one is paid.' },
  methods: METHODS,
  returnUrl: { type: ['string', 'null'], format: 'uri' },
  active: { type: 'boolean' },
  state: {
    type: 'string',
    enum: ['open', 'paid', 'expired', 'inactive'],
    description: '`open` takes payments; `paid`: a single-use link paid once; `inactive`: deactivated.',
  },
  createdAt: { type: 'string', format: 'date-time' },
};
const LINK_SCHEMA: JsonSchema = {
  type: 'object',
  additionalProperties: false,
  required: Object.keys(LINK_PROPERTIES),
  properties: LINK_PROPERTIES,
};
const WITH_PAYMENTS: JsonSchema = {
  ...LINK_SCHEMA,
  required: [...Object.keys(LINK_PROPERTIES), 'payments'],
  properties: {
    ...LINK_PROPERTIES,
    payments: {
      type: 'array',
      description: 'The payments made through the link, newest first (100).',
      items: {
        type: 'object',
        additionalProperties: false,
        required: ['referenceNo', 'method', 'status', 'amount', 'createdAt'],
        properties: {
          referenceNo: { type: 'string' },
          method: { type: 'string', enum: ['qris', 'va', 'ewallet'] },
          status: { type: 'string', description: 'SNAP’s latestTransactionStatus: `00` paid, `01` waiting, …' },
          amount: MONEY,
          createdAt: { type: 'string', format: 'date-time' },
        },
      },
    },
  },
};
const LINK_EXAMPLE = {
  id: 'pl_q9Lr2mXk4TnW8vYz1aBcDe',
  merchantId: 'm_7f3a9c',
  url: 'https://gateway.example/l/pl_q9Lr2mXk4TnW8vYz1aBcDe',
  description: 'Kopi susu gula aren, 2 liter',
  amount: { value: '85000.00', currency: 'IDR' },
  minAmount: null,
  maxAmount: null,
  expiresAt: null,
  singleUse: true,
  methods: ['qris', 'va:014', 'ewallet:DANA'],
  returnUrl: null,
  active: true,
  state: 'open',
  createdAt: T,
};
const linkParam = textParam('linkId', 'The payment link’s id.');

/**
 * Payment links (docs/payment-links.md): a merchant's link, made by the operator (or by the merchant
 * in its dashboard); listed, read with its payments, deactivated.
 */
export function adminPaymentLinkRoutes(
  app: FastifyInstance,
  deps: { links: PaymentLinkService; docs: RouteDocs },
): void {
  const { links } = deps;
  const ids = (params: unknown) => parseWith(linkParams, params, 'invalid path');

  documentedRoute<{ Params: { id: string } }>(app, deps.docs, {
    method: 'post',
    url: '/merchants/:id/links',
    config: { api: 'admin' },
    operation: op({
      operationId: 'createPaymentLink',
      tags: [TAG.merchants],
      summary: 'Make a payment link',
      description:
        'A link the merchant sends its payer (by chat, say): the payer opens `url`, picks a method and pays an ordinary transaction of the merchant, whose callbacks carry `additionalInfo.paymentLinkId`. Without `amount` the payer types it (within `minAmount` and `maxAmount`, when set). `methods` defaults to every method the gateway offers now: QRIS, each bank’s VA, each e-wallet. `singleUse` (default true) stops the link once one payment is paid.',
      parameters: [idParam('merchant')],
      requestBody: body(
        {
          type: 'object',
          additionalProperties: false,
          required: ['description'],
          properties: {
            description: { type: 'string', maxLength: 200 },
            amount: MONEY,
            minAmount: MONEY,
            maxAmount: MONEY,
            expiresAt: { type: 'string', format: 'date-time' },
            singleUse: { type: 'boolean', default: true },
            methods: METHODS,
            returnUrl: { type: 'string', format: 'uri', maxLength: 2048 },
          },
        },
        { description: 'Kopi susu gula aren, 2 liter', amount: { value: '85000.00', currency: 'IDR' } },
      ),
      responses: {
        ...ok('The link.', LINK_SCHEMA, LINK_EXAMPLE, '201'),
        '400': badRequest('A field is not valid (every problem is listed).', [
          'description: required, at most 200 characters',
        ]),
        '404': notFound('merchant'),
      },
    }),
    handler: async (request, reply) => {
      const input = parseAdminBody(request, createSchema);
      return reply.code(201).send(await links.create(request.params.id.slice(0, 64), input));
    },
  });

  documentedRoute<{ Params: { id: string } }>(app, deps.docs, {
    method: 'get',
    url: '/merchants/:id/links',
    config: { api: 'admin' },
    operation: op({
      operationId: 'listPaymentLinks',
      tags: [TAG.merchants],
      summary: 'List a merchant’s payment links',
      description: 'Newest first; `nextCursor` pages on.',
      parameters: [
        idParam('merchant'),
        { name: 'limit', in: 'query', schema: { type: 'integer', minimum: 1, maximum: 500, default: 50 } },
        { name: 'cursor', in: 'query', schema: { type: 'string' } },
      ],
      responses: {
        ...ok(
          'The links.',
          {
            type: 'object',
            additionalProperties: false,
            required: ['items', 'nextCursor'],
            properties: {
              items: { type: 'array', items: LINK_SCHEMA },
              nextCursor: {
                type: ['string', 'null'],
                description: 'Pass as `cursor` for the next page; null at the end.',
              },
            },
          },
          { items: [LINK_EXAMPLE], nextCursor: null },
        ),
        '400': BAD_QUERY,
        '404': notFound('merchant'),
      },
    }),
    handler: async (request) => {
      const q = parseWith(listQuery, request.query, 'invalid query');
      return links.list(request.params.id.slice(0, 64), q.limit, q.cursor);
    },
  });

  documentedRoute<{ Params: { id: string; linkId: string } }>(app, deps.docs, {
    method: 'get',
    url: '/merchants/:id/links/:linkId',
    config: { api: 'admin' },
    operation: op({
      operationId: 'getPaymentLink',
      tags: [TAG.merchants],
      summary: 'Get a payment link with its payments',
      parameters: [idParam('merchant'), linkParam],
      responses: {
        ...ok('The link and its payments.', WITH_PAYMENTS, {
          ...LINK_EXAMPLE,
          state: 'paid',
          payments: [
            {
              referenceNo: '261129101500000001',
              method: 'qris',
              status: '00',
              amount: { value: '85000.00', currency: 'IDR' },
              createdAt: T,
            },
          ],
        }),
        '400': BAD_PATH,
        '404': notFound('payment link'),
      },
    }),
    handler: async (request) => {
      const { id, linkId } = ids(request.params);
      return links.get(id, linkId);
    },
  });

  documentedRoute<{ Params: { id: string; linkId: string } }>(app, deps.docs, {
    method: 'patch',
    url: '/merchants/:id/links/:linkId',
    config: { api: 'admin' },
    operation: op({
      operationId: 'deactivatePaymentLink',
      tags: [TAG.merchants],
      summary: 'Deactivate a payment link',
      description:
        'The link takes no payment any more; its page says so. Its payments still unpaid are cancelled (the newest 100); paid ones stand.',
      parameters: [idParam('merchant'), linkParam],
      requestBody: body(
        {
          type: 'object',
          additionalProperties: false,
          required: ['active'],
          properties: { active: { type: 'boolean', enum: [false] } },
        },
        { active: false },
      ),
      responses: {
        ...ok('The link after.', LINK_SCHEMA, { ...LINK_EXAMPLE, active: false, state: 'inactive' }),
        '400': badRequest('Only `{"active": false}` is taken.', ['active: Invalid input: expected false']),
        '404': notFound('payment link'),
        '409': conflict('The link is inactive already.', 'payment link pl_q9Lr2mXk4TnW8vYz1aBcDe is inactive already'),
      },
    }),
    handler: async (request) => {
      const { id, linkId } = ids(request.params);
      parseAdminBody(request, patchSchema);
      return links.deactivate(id, linkId, request.id);
    },
  });
}

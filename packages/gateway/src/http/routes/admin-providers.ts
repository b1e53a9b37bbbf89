import type { FastifyInstance } from 'fastify';
import { iso } from '../../payments/transaction-view.ts';
import { providerCreateSchema, providerPatchSchema } from '../../providers/provider-fields.ts';
import { type ProviderService, providerView } from '../../providers/provider-service.ts';
import { clientListQuery, idParams, listQuery, parseWith } from '../admin-body.ts';
import {
  BAD_PATH,
  BAD_QUERY,
  badRequest,
  body,
  conflict,
  idParam,
  LIST_DESCRIPTIONS,
  notFound,
  ORDER_DESCRIPTION,
  ok,
  op,
  PATCH_NOTE,
  page,
  rotateSecret,
  T,
  TAG,
} from '../openapi/admin-kit.ts';
import { fromZod, type Operation, queryParameters, ref } from '../openapi/kit.ts';
import { documentedRoute, type RouteDocs } from '../openapi/route-docs.ts';
import { type ClientOperations, clientAdminRoutes } from './client-admin.ts';

/** Admin API for upstream providers: banks and acquirers. Secrets are shown once. */
export function adminProviderRoutes(app: FastifyInstance, deps: { providers: ProviderService; docs: RouteDocs }) {
  const { providers } = deps;
  clientAdminRoutes(app, deps.docs, {
    path: '/providers',
    createSchema: providerCreateSchema,
    patchSchema: providerPatchSchema,
    view: providerView,
    create: async (input) => {
      const { provider, clientSecret } = await providers.create(input);
      return { record: provider, clientSecret };
    },
    list: (page) => providers.list(page),
    get: (id) => providers.get(id),
    update: (id, patch) => providers.update(id, patch),
    rotateSecret: (id, overlapSec) => providers.rotateSecret(id, overlapSec),
    operations: providerOperations(),
  });

  documentedRoute(app, deps.docs, {
    method: 'get',
    url: '/providers/:id/inbound',
    config: { api: 'admin' },
    operation: inboundOperation(),
    handler: async (request) => {
      const { id } = parseWith(idParams, request.params, 'invalid path');
      const q = parseWith(listQuery, request.query, 'invalid query');
      const page = await providers.inbound(id, { limit: q.limit, cursor: q.cursor });
      return {
        items: page.items.map(({ providerId: _p, at, ...rest }) => ({ ...rest, at: iso(at) })),
        nextCursor: page.nextCursor,
      };
    },
  });
}

const PROVIDER_EXAMPLE = {
  id: 'b4e2d3c5-6f7a-4b8c-9d0e-1f2a3b4c5d6e',
  name: 'Bank Central',
  kind: 'bank',
  bankCode: '014',
  clientKey: '8e1d2f6a-3c4b-4d5e-8f9a-2b3c4d5e6f7a',
  previousValidUntil: null,
  secretVersion: 1,
  publicKeyPem: null,
  outbound: null,
  isSandbox: false,
  acquiresGatewayQris: false,
  payouts: null,
  payOption: null,
  status: 'active',
  createdAt: T,
  updatedAt: T,
};

/** The OpenAPI path items of these routes (http/openapi/admin-document.ts assembles them). */
/** What the admin API's document says of each provider route. */
function providerOperations(): ClientOperations {
  const codeTaken = conflict(
    'An active bank already owns the bankCode, or another provider is the payout bank (`payouts`).',
    'bankCode 014 already belongs to an active bank',
  );
  return {
    create: op({
      operationId: 'createProvider',
      tags: [TAG.providers],
      summary: 'Connect a bank or an acquirer',
      description:
        'A bank owns the VAs of its `bankCode`, and with `outbound` and `payouts` settings is the payout bank snapgate pays out through; an acquirer notifies QRIS payments, and with `outbound` settings issues the QRIS of the merchants that name it. Answers its client secret, shown this once.',
      requestBody: body(fromZod(providerCreateSchema), { name: 'Bank Central', kind: 'bank', bankCode: '014' }),
      responses: {
        ...ok('Created.', ref('CreatedProvider'), { ...PROVIDER_EXAMPLE, clientSecret: 'p7Q…base64url' }, '201'),
        '400': badRequest('Invalid settings: every problem is listed in `errors`.', ['bankCode: must be 3 digits']),
        '409': codeTaken,
      },
    }),
    list: op({
      operationId: 'listProviders',
      tags: [TAG.providers],
      summary: 'List providers',
      description: 'The built-in sandbox bank and acquirer are listed too (sandbox mode).',
      parameters: queryParameters(clientListQuery, { ...LIST_DESCRIPTIONS, order: ORDER_DESCRIPTION }),
      responses: {
        ...ok('A page of providers.', page('Provider'), { items: [PROVIDER_EXAMPLE], nextCursor: null }),
        '400': BAD_QUERY,
      },
    }),
    get: op({
      operationId: 'getProvider',
      tags: [TAG.providers],
      summary: 'Show a provider',
      parameters: [idParam('provider')],
      responses: {
        ...ok('The provider.', ref('Provider'), PROVIDER_EXAMPLE),
        '400': BAD_PATH,
        '404': notFound('provider'),
      },
    }),
    update: op({
      operationId: 'updateProvider',
      tags: [TAG.providers],
      summary: 'Change a provider’s settings, or disable it',
      parameters: [idParam('provider')],
      requestBody: body(fromZod(providerPatchSchema), { status: 'disabled' }, { description: PATCH_NOTE }),
      responses: {
        ...ok('The provider as changed.', ref('Provider'), PROVIDER_EXAMPLE),
        '400': badRequest('Invalid settings, or none given.', ['at least one field is required']),
        '404': notFound('provider'),
        '409': codeTaken,
      },
    }),
    rotateSecret: op({
      operationId: 'rotateProviderSecret',
      tags: [TAG.providers],
      summary: 'Rotate a provider’s client secret',
      description: 'The previous secret keeps working for `overlapSec` (default 86400).',
      parameters: [idParam('provider')],
      ...rotateSecret('provider'),
    }),
  };
}

/** `GET /admin/v1/providers/:id/inbound`. */
const inboundOperation = (): Operation =>
  op({
    operationId: 'listInboundCalls',
    tags: [TAG.providers],
    summary: 'The provider’s calls, as answered',
    description: 'Every SNAP call the provider made that got past its token, newest first.',
    parameters: [idParam('provider'), ...queryParameters(listQuery, LIST_DESCRIPTIONS)],
    responses: {
      ...ok('A page of calls.', page('InboundCall')),
      '400': BAD_QUERY,
      '404': notFound('provider'),
    },
  });

import type { FastifyInstance } from 'fastify';
import { merchantCreateSchema, merchantPatchSchema } from '../../merchants/merchant-fields.ts';
import type { MerchantService } from '../../merchants/merchant-service.ts';
import { merchantView } from '../../merchants/merchant-service.ts';
import { clientListQuery } from '../admin-body.ts';
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
  problem,
  rotateSecret,
  TAG,
} from '../openapi/admin-kit.ts';
import { MERCHANT_EXAMPLE } from '../openapi/admin-schemas.ts';
import { fromZod, queryParameters, ref } from '../openapi/kit.ts';
import type { RouteDocs } from '../openapi/route-docs.ts';
import { type ClientOperations, clientAdminRoutes } from './client-admin.ts';

export function adminMerchantRoutes(app: FastifyInstance, deps: { merchants: MerchantService; docs: RouteDocs }) {
  const { merchants } = deps;
  clientAdminRoutes(app, deps.docs, {
    path: '/merchants',
    createSchema: merchantCreateSchema,
    patchSchema: merchantPatchSchema,
    view: merchantView,
    create: async (input) => {
      const { merchant, clientSecret } = await merchants.create(input);
      return { record: merchant, clientSecret };
    },
    list: (page) => merchants.list(page),
    get: (id) => merchants.get(id),
    update: (id, patch) => merchants.update(id, patch),
    rotateSecret: (id, overlapSec) => merchants.rotateSecret(id, overlapSec),
    operations: merchantOperations(),
  });
}

/** What the admin API's document says of each merchant route. */
function merchantOperations(): ClientOperations {
  const taken = conflict(
    'The partnerId is taken, or there is no payout bank to verify `payoutAccount` at.',
    'partnerId WARUNGKOPI is already in use',
  );
  const said = '4041611 Invalid Card/Account/Customer [Account Not Found]';
  const accountRefused = problem(
    '422',
    'The payout bank refused the bank account (`payoutAccount`): its `responseCode` and `responseMessage`. Nothing was saved.',
    {
      example: {
        value: {
          type: 'about:blank',
          title: 'Unprocessable Content',
          status: 422,
          detail: `the payout bank refused the account inquiry (16): ${said}`,
          errors: [`payoutAccount: the payout bank refused the account: ${said}`],
          responseCode: '4041611',
          responseMessage: 'Invalid Card/Account/Customer [Account Not Found]',
        },
      },
    },
  );
  const bankSilent = problem(
    '502',
    'The payout bank gave no answer to the account inquiry (`payoutAccount`): nothing was saved; try again.',
    {
      example: {
        value: {
          type: 'about:blank',
          title: 'Bad Gateway',
          status: 502,
          detail:
            'the payout bank gave no answer to the account inquiry (16): SNAP exchange exceeded 10000 ms; try again',
        },
      },
    },
  );
  return {
    create: op({
      operationId: 'createMerchant',
      tags: [TAG.merchants],
      summary: 'Create a merchant',
      description: 'Answers the merchant with its client secret, shown this once.',
      requestBody: body(fromZod(merchantCreateSchema), {
        name: 'Warung Kopi',
        callbackBaseUrl: 'https://merchant.example',
        merchantName: 'WARUNG KOPI',
        merchantCity: 'BANDUNG',
        mcc: '5812',
      }),
      responses: {
        ...ok('Created.', ref('CreatedMerchant'), { ...MERCHANT_EXAMPLE, clientSecret: 'q3J5…base64url' }, '201'),
        '400': badRequest('Invalid settings: every problem is listed in `errors`.'),
        '409': taken,
        '422': accountRefused,
        '502': bankSilent,
      },
    }),
    list: op({
      operationId: 'listMerchants',
      tags: [TAG.merchants],
      summary: 'List merchants',
      parameters: queryParameters(clientListQuery, { ...LIST_DESCRIPTIONS, order: ORDER_DESCRIPTION }),
      responses: {
        ...ok('A page of merchants.', page('Merchant'), { items: [MERCHANT_EXAMPLE], nextCursor: null }),
        '400': BAD_QUERY,
      },
    }),
    get: op({
      operationId: 'getMerchant',
      tags: [TAG.merchants],
      summary: 'Show a merchant',
      parameters: [idParam('merchant')],
      responses: {
        ...ok('The merchant.', ref('Merchant'), MERCHANT_EXAMPLE),
        '400': BAD_PATH,
        '404': notFound('merchant'),
      },
    }),
    update: op({
      operationId: 'updateMerchant',
      tags: [TAG.merchants],
      summary: 'Change a merchant’s settings, or disable it',
      description: 'Disabling a merchant refuses its tokens at once.',
      parameters: [idParam('merchant')],
      requestBody: body(fromZod(merchantPatchSchema), { callbackSignature: 'rsa-sha256' }, { description: PATCH_NOTE }),
      responses: {
        ...ok('The merchant as changed.', ref('Merchant'), MERCHANT_EXAMPLE),
        '400': badRequest('Invalid settings, or none given.', ['at least one field is required']),
        '404': notFound('merchant'),
        '409': taken,
        '422': accountRefused,
        '502': bankSilent,
      },
    }),
    rotateSecret: op({
      operationId: 'rotateMerchantSecret',
      tags: [TAG.merchants],
      summary: 'Rotate a merchant’s client secret',
      description: 'The previous secret, and tokens issued under it, keep working for `overlapSec` (default 86400).',
      parameters: [idParam('merchant')],
      ...rotateSecret('merchant'),
    }),
  };
}

import { B2B2C_TOKEN_PATH, formatJakartaTimestamp, SERVICE } from '@snapgate/snap';
import type { FastifyInstance } from 'fastify';
import type { BindingService } from '../../payments/binding-service.ts';
import { mountsOf, type SnapMounts } from '../../snap-mounts.ts';
import type { TokenService } from '../../tokens/token-service.ts';
import { json, type Operation, paramRef, ref } from '../openapi/kit.ts';
import type { RouteDocs } from '../openapi/route-docs.ts';
import { errorResponses, NOW, TAG } from '../openapi/snap-kit.ts';
import { headerValue, rawBodyOf } from '../raw-body.ts';
import { TOKEN_REQUEST_CASES } from './access-token-b2b.ts';

/**
 * `POST /api/snap/v1.0/access-token/b2b2c` (74): a bound customer's token (docs/ewallets.md#account-binding),
 * by the authCode the customer came back with or by the binding's refresh token. The merchant signs
 * the request as it signs its B2B token request.
 */
export function accessTokenB2b2cRoute(
  app: FastifyInstance,
  deps: { tokens: TokenService; bindings: BindingService; mounts: SnapMounts; docs: RouteDocs },
) {
  deps.docs.add(B2B2C_TOKEN_PATH, 'post', customerTokenOperation());
  const route = { name: 'access-token-b2b2c', method: 'POST' as const, path: 'access-token/b2b2c' };
  for (const { url } of mountsOf(deps.mounts, route)) {
    app.post(
      url,
      { config: { api: 'snap', serviceCode: SERVICE.tokenB2b2c, operation: 'access-token-b2b2c' } },
      async (request, reply) => {
        const signed = await deps.tokens.authenticateCustomerTokenRequest(
          (name) => headerValue(request, name),
          rawBodyOf(request),
        );
        const body = await deps.bindings.customerToken(signed.merchant, signed.body, signed.now);
        return reply
          .headers({ 'X-TIMESTAMP': formatJakartaTimestamp(signed.now), 'X-CLIENT-KEY': signed.merchant.clientKey })
          .header('cache-control', 'no-store')
          .type('application/json')
          .send(body);
      },
    );
  }
}

/** What the SNAP document says of the customer token's route. */
function customerTokenOperation(): Operation {
  return {
    operationId: 'accessTokenB2b2c',
    tags: [TAG.ewallet],
    summary: 'Take a bound customer’s token',
    description: `Trades the one-time \`authCode\` a customer came back with from binding their wallet account (10 minutes, once), or the binding’s \`refreshToken\` (which is replaced), for the customer token that \`Authorization-Customer\` carries. Signed as the B2B token request is (SHA256withRSA or HMAC-SHA256 over \`<X-CLIENT-KEY>|<X-TIMESTAMP>\`). An access token lasts an hour, a refresh token 30 days.\n\nService code ${SERVICE.tokenB2b2c}: success is \`2007400\`.`,
    security: [{ tokenSignature: [] }],
    parameters: [paramRef('XClientKey'), paramRef('XTimestamp')],
    requestBody: {
      required: true,
      description: 'JSON (`Content-Type: application/json`).',
      content: json(ref('CustomerTokenRequest'), {
        example: { value: { grantType: 'authorization_code', authCode: 'Zr3oK0yq4m1…' } },
      }),
    },
    responses: {
      '200': {
        description: 'The customer token and its refresh token.',
        content: json(ref('CustomerTokenResponse'), {
          example: {
            value: {
              responseCode: '2007400',
              responseMessage: 'Successful',
              accessToken: 'h4Q0y9rW3t…',
              tokenType: 'Bearer',
              accessTokenExpiryTime: NOW,
              refreshToken: 'mN8c2Lk1vX…',
              refreshTokenExpiryTime: NOW,
              additionalInfo: {
                referenceNo: '261129140513557209',
                partnerReferenceNo: 'CUSTOMER-77-DANA',
                payOption: 'SANDBOXPAY',
              },
            },
          },
        }),
      },
      ...errorResponses(SERVICE.tokenB2b2c, TOKEN_REQUEST_CASES),
    },
  };
}

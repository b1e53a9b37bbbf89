import { B2B_TOKEN_PATH, SERVICE, type SnapCase, successCode } from '@snapgate/snap';
import type { FastifyInstance } from 'fastify';
import { mountsOf, type SnapMounts } from '../../snap-mounts.ts';
import type { TokenService } from '../../tokens/token-service.ts';
import { json, type Operation, paramRef, ref } from '../openapi/kit.ts';
import type { RouteDocs } from '../openapi/route-docs.ts';
import { errorResponses, TAG } from '../openapi/snap-kit.ts';
import { headerValue, rawBodyOf } from '../raw-body.ts';

export function accessTokenB2bRoute(
  app: FastifyInstance,
  deps: { tokens: TokenService; mounts: SnapMounts; docs: RouteDocs },
) {
  // Documented once, at B2B_TOKEN_PATH; served there under each prefix, and at a profile's own token path.
  deps.docs.add(B2B_TOKEN_PATH, 'post', accessTokenOperation());
  for (const { url } of mountsOf(deps.mounts, { name: 'access-token-b2b', method: 'POST', path: 'access-token/b2b' })) {
    app.post(
      url,
      { config: { api: 'snap', serviceCode: SERVICE.token, operation: 'access-token-b2b' } },
      async (request, reply) => {
        const r = await deps.tokens.issueB2bToken((name) => headerValue(request, name), rawBodyOf(request));
        return reply.headers(r.headers).type('application/json').send(r.body);
      },
    );
  }
}

/** What a signed token request (B2B, and a customer's B2B2C) may be refused with. */
export const TOKEN_REQUEST_CASES: SnapCase[] = [
  'BAD_REQUEST',
  'INVALID_FIELD_FORMAT',
  'INVALID_MANDATORY_FIELD',
  'UNAUTHORIZED',
  'TOO_MANY_REQUESTS',
  'GENERAL_ERROR',
];

/** What the SNAP document says of the token's route. */
function accessTokenOperation(): Operation {
  return {
    operationId: 'accessTokenB2b',
    tags: [TAG.token],
    summary: 'Take a B2B access token',
    description: `A merchant (or a provider) takes a bearer token for its signed calls. The token dies with its expiry, with its client’s secret once a rotation’s overlap ends, and when the client is disabled.\n\nService code ${SERVICE.token}: success is \`${successCode(SERVICE.token)}\`.`,
    security: [{ tokenSignature: [] }],
    parameters: [paramRef('XClientKey'), paramRef('XTimestamp')],
    requestBody: {
      required: true,
      description: 'JSON (`Content-Type: application/json`).',
      content: json(ref('AccessTokenRequest'), { example: { value: { grantType: 'client_credentials' } } }),
    },
    responses: {
      '200': {
        description: 'The token.',
        headers: {
          'X-TIMESTAMP': { description: 'When it was issued.', required: true, schema: ref('SnapTimestamp') },
          'X-CLIENT-KEY': {
            description: 'The client key it was issued to.',
            required: true,
            schema: { type: 'string' },
          },
        },
        content: json(ref('AccessTokenResponse'), {
          example: {
            value: {
              responseCode: '2007100',
              responseMessage: 'Successful',
              accessToken: 'eyJhbGciOiJIUzI1NiJ9.eyJzdWIiOiJjayJ9.c2lnbmF0dXJl',
              tokenType: 'Bearer',
              expiresIn: 900,
            },
          },
        }),
      },
      ...errorResponses(SERVICE.token, TOKEN_REQUEST_CASES),
    },
  };
}

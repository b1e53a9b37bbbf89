import { B2B_TOKEN_PATH, SERVICE } from '@snapgate/snap';
import type { FastifyInstance } from 'fastify';
import type { TokenService } from '../../tokens/token-service.ts';
import { headerValue, rawBodyOf } from '../raw-body.ts';

export function accessTokenB2bRoute(app: FastifyInstance, deps: { tokens: TokenService }) {
  app.post(
    B2B_TOKEN_PATH,
    { config: { api: 'snap', serviceCode: SERVICE.token, operation: 'access-token-b2b' } },
    async (request, reply) => {
      const r = await deps.tokens.issueB2bToken((name) => headerValue(request, name), rawBodyOf(request));
      return reply.headers(r.headers).type('application/json').send(r.body);
    },
  );
}

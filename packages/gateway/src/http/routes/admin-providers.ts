import type { FastifyInstance } from 'fastify';
import { iso } from '../../payments/transaction-view.ts';
import { providerCreateSchema, providerPatchSchema } from '../../providers/provider-fields.ts';
import { type ProviderService, providerView } from '../../providers/provider-service.ts';
import { idParams, listQuery, parseAdminBody, parseWith, rotateSchema } from '../admin-body.ts';

/** Admin API for upstream providers: banks and acquirers. Secrets are shown once. */
export function adminProviderRoutes(app: FastifyInstance, deps: { providers: ProviderService }) {
  const { providers } = deps;
  const config = { api: 'admin' as const };

  app.post('/providers', { config }, async (request, reply) => {
    const input = parseAdminBody(request, providerCreateSchema);
    const { provider, clientSecret } = await providers.create(input);
    return reply.code(201).send({ ...providerView(provider), clientSecret });
  });

  app.get('/providers', { config }, async (request) => {
    const q = parseWith(listQuery, request.query, 'invalid query');
    const page = await providers.list({ limit: q.limit, cursor: q.cursor });
    return { items: page.items.map(providerView), nextCursor: page.nextCursor };
  });

  app.get('/providers/:id', { config }, async (request) => {
    const { id } = parseWith(idParams, request.params, 'invalid path');
    return providerView(await providers.get(id));
  });

  app.patch('/providers/:id', { config }, async (request) => {
    const { id } = parseWith(idParams, request.params, 'invalid path');
    const patch = parseAdminBody(request, providerPatchSchema);
    return providerView(await providers.update(id, patch));
  });

  app.post('/providers/:id/rotate-secret', { config }, async (request) => {
    const { id } = parseWith(idParams, request.params, 'invalid path');
    const { overlapSec } = parseAdminBody(request, rotateSchema, true);
    const r = await providers.rotateSecret(id, overlapSec ?? 86_400);
    return { clientSecret: r.clientSecret, previousValidUntil: iso(r.previousValidUntil) };
  });

  app.get('/providers/:id/inbound', { config }, async (request) => {
    const { id } = parseWith(idParams, request.params, 'invalid path');
    const q = parseWith(listQuery, request.query, 'invalid query');
    const page = await providers.inbound(id, { limit: q.limit, cursor: q.cursor });
    return {
      items: page.items.map(({ providerId: _p, at, ...rest }) => ({ ...rest, at: iso(at) })),
      nextCursor: page.nextCursor,
    };
  });
}

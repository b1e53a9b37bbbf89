import type { FastifyInstance } from 'fastify';
import { merchantCreateSchema, merchantPatchSchema } from '../../merchants/merchant-fields.ts';
import type { MerchantService } from '../../merchants/merchant-service.ts';
import { merchantView } from '../../merchants/merchant-service.ts';
import { idParams, listQuery, parseAdminBody, parseWith, rotateSchema } from '../admin-body.ts';

export function adminMerchantRoutes(app: FastifyInstance, deps: { merchants: MerchantService }) {
  const { merchants } = deps;
  const config = { api: 'admin' as const };

  app.post('/merchants', { config }, async (request, reply) => {
    const input = parseAdminBody(request, merchantCreateSchema);
    const { merchant, clientSecret } = await merchants.create(input);
    return reply.code(201).send({ ...merchantView(merchant), clientSecret });
  });

  app.get('/merchants', { config }, async (request) => {
    const q = parseWith(listQuery, request.query, 'invalid query');
    const page = await merchants.list({ limit: q.limit, cursor: q.cursor });
    return { items: page.items.map(merchantView), nextCursor: page.nextCursor };
  });

  app.get('/merchants/:id', { config }, async (request) => {
    const { id } = parseWith(idParams, request.params, 'invalid path');
    return merchantView(await merchants.get(id));
  });

  app.patch('/merchants/:id', { config }, async (request) => {
    const { id } = parseWith(idParams, request.params, 'invalid path');
    const patch = parseAdminBody(request, merchantPatchSchema);
    return merchantView(await merchants.update(id, patch));
  });

  app.post('/merchants/:id/rotate-secret', { config }, async (request) => {
    const { id } = parseWith(idParams, request.params, 'invalid path');
    const { overlapSec } = parseAdminBody(request, rotateSchema, true);
    const r = await merchants.rotateSecret(id, overlapSec ?? 86_400);
    return { clientSecret: r.clientSecret, previousValidUntil: new Date(r.previousValidUntil).toISOString() };
  });
}

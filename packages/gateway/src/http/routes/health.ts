import type { FastifyInstance } from 'fastify';
import type { Store } from '../../store/store.ts';
import type { Metrics } from '../metrics.ts';

export function healthRoutes(app: FastifyInstance, deps: { store: Store; metrics: Metrics }) {
  const config = { api: 'admin' as const };
  app.get('/healthz', { config }, async () => ({ status: 'ok' }));
  app.get('/readyz', { config }, async (_request, reply) => {
    try {
      await deps.store.ping();
      return { status: 'ready', store: deps.store.kind };
    } catch {
      return reply.code(503).send({ status: 'unavailable', store: deps.store.kind });
    }
  });
  app.get('/metrics', { config }, async (_request, reply) =>
    reply.type(deps.metrics.registry.contentType).send(await deps.metrics.registry.metrics()),
  );
}

import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import type { Store } from '../../store/store.ts';
import type { Metrics } from '../metrics.ts';

type Hook = (request: FastifyRequest, reply: FastifyReply) => Promise<void>;

/**
 * Liveness, readiness and the Prometheus metrics. `metricsGuard`: `open` (sandbox), an admin-key
 * hook (production), or `elsewhere` when /metrics has a port of its own (metricsServer).
 */
export function healthRoutes(
  app: FastifyInstance,
  deps: { store: Store; metrics: Metrics; metricsGuard?: 'open' | 'elsewhere' | Hook },
) {
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
  const guard = deps.metricsGuard ?? 'open';
  if (guard === 'elsewhere') return;
  app.get('/metrics', { config, ...(guard === 'open' ? {} : { onRequest: guard }) }, async (_request, reply) =>
    reply.type(deps.metrics.registry.contentType).send(await deps.metrics.registry.metrics()),
  );
}

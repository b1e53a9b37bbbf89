import type { FastifyInstance } from 'fastify';
import type { Config } from '../../config.ts';
import type { Store } from '../../store/store.ts';
import type { AdminAuth } from '../admin-auth.ts';
import type { Metrics } from '../metrics.ts';

/** How `/metrics` is served: open (sandbox), behind an admin key (production), or on a port of its own. */
export type MetricsAccess = 'open' | 'admin-key' | 'elsewhere';

/**
 * The one rule for `/metrics` on the public port, served by healthRoutes and documented by the
 * admin OpenAPI document: a port of its own (SNAPGATE_METRICS_PORT, main.ts) takes it off the
 * public port altogether; else an admin key (read) in production; else open (sandbox).
 */
export function metricsAccessOf(config: Pick<Config, 'mode' | 'metricsPort'>): MetricsAccess {
  if (config.metricsPort !== undefined) return 'elsewhere';
  return config.mode === 'production' ? 'admin-key' : 'open';
}

/** Liveness, readiness and the Prometheus metrics, the latter as metricsAccessOf says. */
export function healthRoutes(
  app: FastifyInstance,
  deps: { store: Store; metrics: Metrics; config: Pick<Config, 'mode' | 'metricsPort'>; adminAuth: AdminAuth },
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
  const access = metricsAccessOf(deps.config);
  if (access === 'elsewhere') return;
  app.get(
    '/metrics',
    { config, ...(access === 'admin-key' ? { onRequest: deps.adminAuth } : {}) },
    async (_request, reply) =>
      reply.type(deps.metrics.registry.contentType).send(await deps.metrics.registry.metrics()),
  );
}

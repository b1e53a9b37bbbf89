import type { FastifyInstance } from 'fastify';
import type { Config } from '../../config.ts';
import type { Store } from '../../store/store.ts';
import type { AdminAuth } from '../admin-auth.ts';
import type { Metrics } from '../metrics.ts';
import { ok, TAG, UNAUTHORIZED } from '../openapi/admin-kit.ts';
import { closed, type Operation } from '../openapi/kit.ts';
import { documentedRoute, type RouteDocs } from '../openapi/route-docs.ts';

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
  deps: {
    store: Store;
    metrics: Metrics;
    config: Pick<Config, 'mode' | 'metricsPort' | 'stagingAllow'>;
    adminAuth: AdminAuth;
    docs: RouteDocs;
  },
) {
  const config = { api: 'admin' as const };
  const access = metricsAccessOf(deps.config);
  const ops = healthOperations(access);
  documentedRoute(app, deps.docs, {
    method: 'get',
    url: '/healthz',
    config,
    operation: ops.healthz,
    handler: async () => ({ status: 'ok' }),
  });
  documentedRoute(app, deps.docs, {
    method: 'get',
    url: '/readyz',
    config,
    operation: ops.readyz,
    handler: async (_request, reply) => {
      try {
        await deps.store.ping();
        // A staging rehearsal's allowance is said wherever an operator looks (SNAPGATE_STAGING_ALLOW).
        const staging = deps.config.stagingAllow.text;
        return { status: 'ready', store: deps.store.kind, ...(staging.length ? { stagingAllow: staging } : {}) };
      } catch {
        return reply.code(503).send({ status: 'unavailable', store: deps.store.kind });
      }
    },
  });
  if (access === 'elsewhere') return;
  documentedRoute(app, deps.docs, {
    method: 'get',
    url: '/metrics',
    config,
    ...(access === 'admin-key' ? { onRequest: deps.adminAuth } : {}),
    operation: ops.metrics,
    handler: async (_request, reply) =>
      reply.type(deps.metrics.registry.contentType).send(await deps.metrics.registry.metrics()),
  });
}

/** What the admin API's document says of each route: none takes an admin key but `/metrics` in production. */
function healthOperations(metrics: MetricsAccess) {
  const guarded = metrics === 'admin-key';
  return {
    healthz: {
      operationId: 'healthz',
      tags: [TAG.operations],
      summary: 'Liveness',
      description: 'The process answers. No authentication.',
      security: [],
      responses: ok('Alive.', closed({ status: { const: 'ok' } }), { status: 'ok' }),
    },
    readyz: {
      operationId: 'readyz',
      tags: [TAG.operations],
      summary: 'Readiness',
      description: 'The store answers. No authentication.',
      security: [],
      responses: {
        ...ok('Ready.', closed({ status: { const: 'ready' }, store: { enum: ['sqlite', 'postgres'] } }), {
          status: 'ready',
          store: 'sqlite',
        }),
        ...ok(
          'The store does not answer.',
          closed({ status: { const: 'unavailable' }, store: { enum: ['sqlite', 'postgres'] } }),
          { status: 'unavailable', store: 'postgres' },
          '503',
        ),
      },
    },
    metrics: {
      operationId: 'metrics',
      tags: [TAG.operations],
      summary: 'Prometheus metrics',
      description: `Process metrics, \`snapgate_snap_requests_total\` by operation and responseCode, request latency, and callback delivery. ${
        guarded
          ? 'Production mode: an admin key (scope `read`) is needed. `SNAPGATE_METRICS_PORT` serves it on a port of its own instead, without a key.'
          : 'Sandbox mode: no authentication.'
      }`,
      security: guarded ? [{ adminKey: ['read'] }] : [],
      responses: {
        '200': {
          description: 'Prometheus text exposition format.',
          content: { 'text/plain': { schema: { type: 'string' } } },
        },
        ...(guarded ? { '401': UNAUTHORIZED } : {}),
      },
    },
  } satisfies Record<string, Operation>;
}

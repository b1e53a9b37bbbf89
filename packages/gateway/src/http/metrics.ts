import { Counter, collectDefaultMetrics, Histogram, Registry } from 'prom-client';

export interface Metrics {
  registry: Registry;
  snapRequests: Counter<'operation' | 'responseCode'>;
  snapLatency: Histogram<'operation' | 'responseCode'>;
}

/** One registry per app, so several gateways can live in one test process. */
export function createMetrics(): Metrics {
  const registry = new Registry();
  collectDefaultMetrics({ register: registry, prefix: 'snapgate_' });
  return {
    registry,
    snapRequests: new Counter({
      name: 'snapgate_snap_requests_total',
      help: 'SNAP API requests by operation and responseCode',
      labelNames: ['operation', 'responseCode'],
      registers: [registry],
    }),
    snapLatency: new Histogram({
      name: 'snapgate_snap_request_duration_seconds',
      help: 'SNAP API request duration, from the first byte read to the answer written, by operation and responseCode',
      labelNames: ['operation', 'responseCode'],
      buckets: [0.0005, 0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1],
      registers: [registry],
    }),
  };
}

import { Counter, collectDefaultMetrics, Histogram, Registry } from 'prom-client';
import type { Store } from '../store/store.ts';

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

/**
 * The embedded store's group commits (SQLite only): how long each takes and how many writes it
 * carries. A commit the payment calls and status changes wait on; longer commits with more writes
 * each mean the writer is the busy part (docs/operations.md#tracing-and-monitoring).
 */
export function countStoreCommits(registry: Registry, store: Store): void {
  if (!store.observeCommits) return;
  const seconds = new Histogram({
    name: 'snapgate_sqlite_commit_seconds',
    help: 'Group commits of the SQLite writer, from taking the writes to the end of COMMIT (statements, WAL writes, fsync)',
    buckets: [0.0005, 0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 5],
    registers: [registry],
  });
  const writes = new Histogram({
    name: 'snapgate_sqlite_commit_writes',
    help: 'Writes carried by each group commit of the SQLite writer (payment calls, status changes, claims, attempts)',
    buckets: [1, 2, 4, 8, 16, 32, 64, 128, 256, 512],
    registers: [registry],
  });
  store.observeCommits((commit) => {
    seconds.observe(commit.seconds);
    writes.observe(commit.writes);
  });
}

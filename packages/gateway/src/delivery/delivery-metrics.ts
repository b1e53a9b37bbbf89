import { Counter, Gauge, Histogram, type Registry } from 'prom-client';

export interface DeliveryMetrics {
  attempts: Counter<'outcome'>;
  deliveryLatency: Histogram;
  backlog: Gauge;
  oldestUndeliveredAge: Gauge;
}

export function createDeliveryMetrics(registry: Registry): DeliveryMetrics {
  return {
    attempts: new Counter({
      name: 'snapgate_callback_attempts_total',
      help: 'Callback attempts by outcome (acknowledged, rejected, error)',
      labelNames: ['outcome'],
      registers: [registry],
    }),
    deliveryLatency: new Histogram({
      name: 'snapgate_callback_delivery_seconds',
      help: 'From status change committed to the merchant acknowledging its notification',
      buckets: [0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 5, 30, 60, 300, 3600, 86400],
      registers: [registry],
    }),
    backlog: new Gauge({
      name: 'snapgate_callback_backlog',
      help: 'Notifications not yet delivered (pending, retrying or in flight)',
      registers: [registry],
    }),
    oldestUndeliveredAge: new Gauge({
      name: 'snapgate_callback_oldest_undelivered_age_seconds',
      help: 'Age of the oldest notification not yet delivered',
      registers: [registry],
    }),
  };
}

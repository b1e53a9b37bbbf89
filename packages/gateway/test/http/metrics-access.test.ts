import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { metricsAccessOf } from '../../src/http/routes/health.ts';
import { ADMIN_TOKEN, startGateway } from '../helpers/gateway.ts';
import { closedPort } from '../helpers/receiver.ts';

describe('/metrics on the public port', () => {
  it('decides open, admin key or elsewhere from the mode and SNAPGATE_METRICS_PORT alone', () => {
    assert.equal(metricsAccessOf({ mode: 'sandbox', metricsPort: undefined }), 'open');
    assert.equal(metricsAccessOf({ mode: 'production', metricsPort: undefined }), 'admin-key');
    assert.equal(metricsAccessOf({ mode: 'sandbox', metricsPort: 9464 }), 'elsewhere');
    assert.equal(metricsAccessOf({ mode: 'production', metricsPort: 9464 }), 'elsewhere');
  });

  it('is served exactly as the admin OpenAPI document describes it, in every configuration', async () => {
    const metricsPort = String(await closedPort());
    const cases: Array<{ env: Record<string, string>; served: [number, number]; security: unknown }> = [
      { env: {}, served: [200, 200], security: [] },
      { env: { SNAPGATE_MODE: 'production' }, served: [401, 200], security: [{ adminKey: ['read'] }] },
      { env: { SNAPGATE_METRICS_PORT: metricsPort }, served: [404, 404], security: undefined },
      {
        env: { SNAPGATE_MODE: 'production', SNAPGATE_METRICS_PORT: metricsPort },
        served: [404, 404],
        security: undefined,
      },
    ];
    for (const c of cases) {
      const gw = await startGateway({ env: c.env });
      try {
        const anonymous = await fetch(`${gw.url}/metrics`);
        await anonymous.arrayBuffer();
        const keyed = await fetch(`${gw.url}/metrics`, { headers: { authorization: `Bearer ${ADMIN_TOKEN}` } });
        await keyed.arrayBuffer();
        const doc = await (await fetch(`${gw.url}/openapi/admin.json`)).json();
        const label = JSON.stringify(c.env);
        assert.deepEqual([anonymous.status, keyed.status], c.served, label);
        assert.deepEqual(doc.paths['/metrics']?.get.security, c.security, label);
      } finally {
        await gw.close();
      }
    }
  });
});

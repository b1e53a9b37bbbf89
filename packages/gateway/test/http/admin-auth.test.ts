import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { createManualClock } from '../../src/clock.ts';
import { ADMIN_TOKEN, startGateway } from '../helpers/gateway.ts';

const T0 = Date.parse('2025-01-06T03:00:00.000Z');

describe('admin key last-used time', () => {
  it('is written once a minute per key across the admin API, /metrics and the portal-link route', async () => {
    const clock = createManualClock(T0);
    const gw = await startGateway({ clock, env: { SNAPGATE_MODE: 'production' } });
    const bearer = { authorization: `Bearer ${ADMIN_TOKEN}` };
    const lastUsed = async () => {
      const keys = (await gw.admin('GET', '/admin-keys')).body.items as Array<{ lastUsedAt: string | null }>;
      return keys.map((k) => k.lastUsedAt);
    };
    try {
      const merchant = await gw.createMerchant();
      assert.deepEqual(await lastUsed(), [new Date(T0).toISOString()]);

      // Each of these routes checks the key; none of them may write its last-used time again
      // within the minute.
      clock.advance(10_000);
      const link = await fetch(`${gw.url}/admin/v1/merchants/${merchant.id}/portal-link`, {
        method: 'POST',
        headers: bearer,
      });
      assert.equal(link.status, 201, await link.text());
      clock.advance(10_000);
      const metrics = await fetch(`${gw.url}/metrics`, { headers: bearer });
      assert.equal(metrics.status, 200);
      await metrics.arrayBuffer();
      assert.deepEqual(await lastUsed(), [new Date(T0).toISOString()]);

      clock.advance(41_000);
      const again = await fetch(`${gw.url}/admin/v1/merchants/${merchant.id}/portal-link`, {
        method: 'POST',
        headers: bearer,
      });
      assert.equal(again.status, 201, await again.text());
      assert.deepEqual(await lastUsed(), [new Date(T0 + 61_000).toISOString()]);
    } finally {
      await gw.close();
    }
  });
});

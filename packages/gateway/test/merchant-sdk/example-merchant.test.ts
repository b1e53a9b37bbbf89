import assert from 'node:assert/strict';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { type MerchantServer, type Order, startMerchantServer } from '@snapgate/example-merchant-server';
import { startGateway, type TestGateway } from '../helpers/gateway.ts';
import { closedPort, waitFor } from '../helpers/receiver.ts';

describe('examples/merchant-server against a real gateway', () => {
  let gw: TestGateway;
  let shop: MerchantServer;
  before(async () => {
    gw = await startGateway({ dispatch: true, env: { SNAPGATE_RATE_LIMIT: 'off' } });
    const m = await gw.createMerchant({ name: 'Example Shop' });
    shop = await startMerchantServer({
      port: 0,
      gatewayUrl: gw.url,
      clientKey: m.clientKey,
      clientSecret: m.clientSecret,
      partnerId: m.partnerId,
      dbFile: join(gw.dir, 'merchant.db'),
    });
    await gw.admin('PATCH', `/merchants/${m.id}`, { callbackBaseUrl: shop.url });
  });
  after(async () => {
    await shop.close();
    await gw.close();
  });

  const order = async (body: unknown) => {
    const res = await fetch(`${shop.url}/orders`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify(body),
    });
    return { status: res.status, body: (await res.json()) as Order & { error?: string } };
  };
  const statusOf = (id: string) =>
    waitFor(`order ${id} settled`, async () => {
      const o = (await (await fetch(`${shop.url}/orders/${id}`)).json()) as Order;
      return o.status === 'PENDING' ? undefined : o.status;
    });

  it('creates a QRIS order and marks it PAID when the gateway says 00', async () => {
    const o = await order({ amount: '42000.00' });
    assert.equal(o.status, 201);
    assert.equal(o.body.status, 'PENDING');
    assert.equal(o.body.method, 'qris');
    assert.ok(o.body.referenceNo && o.body.qrContent);
    await gw.admin('POST', `/sandbox/qris/${o.body.referenceNo}/pay`, {});
    assert.equal(await statusOf(o.body.id), 'PAID');
  });

  it('marks a QRIS order FAILED when the gateway says 06', async () => {
    const o = await order({ amount: '1000.00', method: 'qris' });
    await gw.admin('POST', `/sandbox/qris/${o.body.referenceNo}/pay`, { status: '06' });
    assert.equal(await statusOf(o.body.id), 'FAILED');
  });

  it('creates a VA order and marks it PAID from the VA callback', async () => {
    const o = await order({ amount: '99000.00', method: 'va', customerName: 'RINA' });
    assert.equal(o.status, 201);
    assert.ok(o.body.virtualAccountNo);
    await gw.admin('POST', `/sandbox/va/${encodeURIComponent(o.body.virtualAccountNo as string)}/pay`, {});
    assert.equal(await statusOf(o.body.id), 'PAID');
  });

  it('refuses a bad order and answers 404 for an unknown one', async () => {
    assert.equal((await order({ amount: '10' })).status, 400);
    assert.equal((await fetch(`${shop.url}/orders/ORD-NOPE`)).status, 404);
  });
});

describe('examples/merchant-server when the gateway is down', () => {
  it('says why in its log and answers a SNAP-shaped 502', async () => {
    const lines: string[] = [];
    const shop = await startMerchantServer({
      port: 0,
      gatewayUrl: `http://127.0.0.1:${await closedPort()}`,
      clientKey: 'k',
      clientSecret: 's',
      partnerId: 'p',
      dbFile: ':memory:',
      log: (line) => lines.push(line),
    });
    try {
      const res = await fetch(`${shop.url}/orders`, {
        method: 'POST',
        body: JSON.stringify({ amount: '1000.00', method: 'qris' }),
      });
      assert.equal(res.status, 502);
      const body = await res.json();
      assert.equal(body.responseCode, '5020000');
      assert.match(body.responseMessage, /did not answer/);
      assert.match(
        lines.join('\n'),
        new RegExp(`order ${body.orderId}: the gateway did not answer \\(ECONNREFUSED\\)`),
      );
    } finally {
      await shop.close();
    }
  });
});

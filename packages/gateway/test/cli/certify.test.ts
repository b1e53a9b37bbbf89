import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { type MerchantServer, startMerchantServer } from '@snapgate/example-merchant-server';
import { runCli } from '../helpers/cli.ts';
import { startGateway, type TestGateway } from '../helpers/gateway.ts';

describe('snapgate certify', () => {
  let gw: TestGateway;
  let shop: MerchantServer;
  let merchantId: string;
  before(async () => {
    gw = await startGateway();
    const m = await gw.createMerchant({ name: 'Toko CLI' });
    merchantId = m.id;
    shop = await startMerchantServer({
      port: 0,
      gatewayUrl: gw.url,
      clientKey: m.clientKey,
      clientSecret: m.clientSecret,
      partnerId: m.partnerId,
      dbFile: ':memory:',
      log: () => undefined,
    });
    await gw.admin('PATCH', `/merchants/${m.id}`, { callbackBaseUrl: shop.url });
  });
  after(async () => {
    await shop.close();
    await gw.close();
  });

  it('says what is missing, then certifies the example merchant with a JUnit report', async () => {
    assert.equal((await runCli(gw, 'certify')).code, 2);
    const missing = await runCli(gw, 'certify', '--merchant', merchantId);
    assert.equal(missing.code, 1);
    assert.match(missing.err, /unpaid QRIS/);
    for (const method of ['qris', 'qris', 'va']) {
      const r = await fetch(`${shop.url}/orders`, {
        method: 'POST',
        body: JSON.stringify({ amount: '5000.00', method }),
      });
      assert.equal(r.status, 201);
    }
    const junit = join(gw.dir, 'certify.xml');
    const r = await runCli(gw, 'certify', '--merchant', merchantId, '--junit', junit);
    assert.equal(r.code, 0, `${r.out}\n${r.err}`);
    assert.match(readFileSync(junit, 'utf8'), /<testsuites/);
  });
});

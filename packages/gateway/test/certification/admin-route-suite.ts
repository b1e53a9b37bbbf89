import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { startMerchantServer } from '@snapgate/example-merchant-server';
import { startGateway, type TestGateway } from '../helpers/gateway.ts';
import { type Receiver, startReceiver } from '../helpers/receiver.ts';
import type { StoreUnderTest } from '../helpers/store-under-test.ts';

export function certificationRouteSuite(under: StoreUnderTest): void {
  describe(`admin API: webhook certification (${under.name})`, () => {
    let gw: TestGateway;
    let cleanup: () => Promise<void>;
    let merchant: Awaited<ReturnType<typeof startMerchantServer>>;
    let merchantId: string;

    before(async () => {
      const opened = await under.open();
      cleanup = opened.cleanup;
      gw = await startGateway(opened.store ? { store: opened.store } : {});
      const m = (await gw.admin('POST', '/merchants', { name: 'Toko Route' })).body;
      merchantId = m.id;
      merchant = await startMerchantServer({
        port: 0,
        gatewayUrl: gw.url,
        clientKey: m.clientKey,
        clientSecret: m.clientSecret,
        partnerId: m.partnerId,
        dbFile: ':memory:',
        log: () => undefined,
      });
      assert.equal((await gw.admin('PATCH', `/merchants/${m.id}`, { callbackBaseUrl: merchant.url })).status, 200);
    });
    after(async () => {
      await merchant?.close();
      await gw?.close();
      await cleanup?.();
    });

    it('answers 422 without unpaid transactions, 404 for an unknown merchant, 400 for a bad body', async () => {
      const none = await gw.admin('POST', `/merchants/${merchantId}/certifications`);
      assert.equal(none.status, 422);
      assert.match(none.body.detail, /lacks 2 unpaid QRIS and an unpaid VA/);
      assert.equal((await gw.admin('POST', '/merchants/nope/certifications', {})).status, 404);
      assert.equal((await gw.admin('POST', `/merchants/${merchantId}/certifications`, { qris: ['x'] })).status, 400);
      assert.equal((await gw.admin('GET', '/merchants/nope/certifications')).status, 404);
      assert.equal((await gw.admin('GET', '/certifications/nope')).status, 404);
    });

    it('certifies the example merchant (201), stores the run, lists it and shows it', async () => {
      for (const method of ['qris', 'qris', 'va']) {
        const r = await fetch(`${merchant.url}/orders`, {
          method: 'POST',
          body: JSON.stringify({ amount: '20000.00', method }),
        });
        assert.equal(r.status, 201);
      }
      const run = await gw.admin('POST', `/merchants/${merchantId}/certifications`, {});
      assert.equal(run.status, 201);
      assert.equal(run.body.ok, true, JSON.stringify(run.body.results.filter((r: { passed: boolean }) => !r.passed)));
      const list = await gw.admin('GET', `/merchants/${merchantId}/certifications`);
      assert.equal(list.status, 200);
      assert.deepEqual(
        list.body.items.map((i: { id: string; passed: boolean }) => [i.id, i.passed]),
        [[run.body.id, true]],
      );
      const one = await gw.admin('GET', `/certifications/${run.body.id}`);
      assert.equal(one.status, 200);
      assert.equal(one.body.report.total, run.body.total);
      assert.deepEqual(one.body.report.transactions, run.body.transactions);
    });
  });

  describe(`admin API: certifying a snap-b2b merchant whose token endpoint refuses (${under.name})`, () => {
    let gw: TestGateway;
    let cleanup: () => Promise<void>;
    let receiver: Receiver;
    before(async () => {
      const opened = await under.open();
      cleanup = opened.cleanup;
      gw = await startGateway(opened.store ? { store: opened.store } : {});
      // The merchant's server refuses every request, its token endpoint included.
      receiver = await startReceiver((_req, res) => {
        res.writeHead(401, { 'content-type': 'application/json' });
        res.end('{"responseCode":"4017300","responseMessage":"Unauthorized. [Signature]"}');
      });
    });
    after(async () => {
      await receiver?.close();
      await gw?.close();
      await cleanup?.();
    });

    it('stores a failed report naming the token endpoint, and changes none of its orders', async () => {
      const m = await gw.createMerchant({
        name: 'Toko B2B Refusing',
        callbackSignature: 'snap-b2b',
        callbackBaseUrl: receiver.baseUrl,
        callbackTokenUrl: `${receiver.baseUrl}/access-token/b2b`,
      });
      const run = await gw.admin('POST', `/merchants/${m.id}/certifications`, { create: true });
      assert.equal(run.status, 201, JSON.stringify(run.body));
      assert.equal(run.body.ok, false);
      const failed = run.body.results.filter((r: { passed: boolean }) => !r.passed);
      assert.deepEqual(
        failed.map((r: { group: string; id: string }) => `${r.group}/${r.id}`),
        ['snap-b2b/token'],
      );
      assert.match(failed[0].reason, /token endpoint issued no token/);
      assert.equal(failed[0].response.status, 401);
      for (const t of run.body.transactions) assert.equal(t.status, '01', `${t.role} is left as it was`);
      const listed = await gw.admin('GET', `/merchants/${m.id}/certifications`);
      assert.deepEqual(
        listed.body.items.map((i: { id: string; passed: boolean }) => [i.id, i.passed]),
        [[run.body.id, false]],
      );
    });
  });

  describe(`admin API: webhook certification in production mode (${under.name})`, () => {
    let gw: TestGateway;
    let cleanup: () => Promise<void>;
    before(async () => {
      const opened = await under.open();
      cleanup = opened.cleanup;
      gw = await startGateway({
        env: { SNAPGATE_MODE: 'production', SNAPGATE_PUBLIC_URL: 'https://gateway.example' },
        ...(opened.store ? { store: opened.store } : {}),
      });
    });
    after(async () => {
      await gw?.close();
      await cleanup?.();
    });

    it('is refused (409)', async () => {
      const m = (await gw.admin('POST', '/merchants', { name: 'Prod' })).body;
      const r = await gw.admin('POST', `/merchants/${m.id}/certifications`, { create: true });
      assert.equal(r.status, 409);
      assert.match(r.body.detail, /only in sandbox mode/);
    });
  });
}

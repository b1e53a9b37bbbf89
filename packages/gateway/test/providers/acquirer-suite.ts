import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { startGateway, type TestGateway } from '../helpers/gateway.ts';
import { waitFor } from '../helpers/receiver.ts';
import { authenticate, postToken, type SnapCaller, snapCall } from '../helpers/snap.ts';
import type { StoreUnderTest } from '../helpers/store-under-test.ts';

const NOTIFY = '/api/snap/v1.0/qr/qr-mpm-notify';
const idr = (value: string) => ({ value, currency: 'IDR' });

export function acquirerSuite(under: StoreUnderTest): void {
  describe(`acquirer → snapgate: QRIS payment notification (52) (${under.name})`, () => {
    let gw: TestGateway;
    let merchant: SnapCaller;
    let acquirer: SnapCaller & { id: string };
    let otherAcquirer: SnapCaller & { id: string };
    let seq = 0;

    async function connect(name: string, settings: Record<string, unknown> = {}): Promise<SnapCaller & { id: string }> {
      const r = await gw.admin('POST', '/providers', { name, kind: 'acquirer', bankCode: '936', ...settings });
      assert.equal(r.status, 201, JSON.stringify(r.body));
      const token = await postToken(gw.url, { clientKey: r.body.clientKey, clientSecret: r.body.clientSecret });
      return {
        id: r.body.id,
        clientKey: r.body.clientKey,
        clientSecret: r.body.clientSecret,
        partnerId: r.body.clientKey,
        accessToken: token.body.accessToken,
      };
    }

    async function generate(m = merchant) {
      const r = await snapCall(gw.url, m, '/api/snap/v1.0/qr/qr-mpm-generate', {
        partnerReferenceNo: `ORD-${++seq}`,
        amount: idr('25000.00'),
      });
      assert.equal(r.status, 200, r.text);
      return r.body as { referenceNo: string; partnerReferenceNo: string };
    }

    const notify = (referenceNo: string, over: Record<string, unknown> = {}, by = acquirer) =>
      snapCall(gw.url, by, NOTIFY, {
        originalReferenceNo: `ACQ-${++seq}`,
        originalPartnerReferenceNo: referenceNo,
        latestTransactionStatus: '00',
        transactionStatusDesc: 'Success',
        amount: idr('25000.00'),
        additionalInfo: { payerIssuer: '93600014', payerName: 'Siti / Ayu', payerRefId: '123456', extra: 'kept out' },
        ...over,
      });

    const statuses = async (referenceNo: string) =>
      (await gw.store.notificationsOf(referenceNo)).map((n) => n.latestStatus);

    before(async () => {
      const opened = await under.open();
      cleanup = opened.cleanup;
      gw = await startGateway({ store: opened.store });
      merchant = await authenticate(gw.url, await gw.createMerchant());
      // Acquirer One acquires the QRIS snapgate issues itself (merchants without a qrisProvider).
      acquirer = await connect('Acquirer One', { acquiresGatewayQris: true });
      otherAcquirer = await connect('Acquirer Two');
    });
    let cleanup: () => Promise<void> = async () => undefined;
    after(async () => {
      await gw.close();
      await cleanup();
    });

    it('applies each notified status through the status machine and notifies the merchant in the same commit', async () => {
      const g = await generate();
      const pending = await notify(g.referenceNo, { latestTransactionStatus: '03' });
      assert.equal(pending.status, 200, pending.text);
      assert.deepEqual(pending.body, { responseCode: '2005200', responseMessage: 'Successful' });
      assert.deepEqual(await statuses(g.referenceNo), ['03']);
      // The same status again: acknowledged, nothing changes, no new notification.
      assert.deepEqual((await notify(g.referenceNo, { latestTransactionStatus: '03' })).body, {
        responseCode: '2005200',
        responseMessage: 'Successful',
      });
      assert.deepEqual(await statuses(g.referenceNo), ['03']);
      assert.equal((await notify(g.referenceNo)).status, 200);
      assert.deepEqual(await statuses(g.referenceNo), ['03', '00']);
      const txn = await gw.store.findTransaction(g.referenceNo);
      assert.deepEqual([txn?.status, txn?.paidAmount], ['00', '25000.00']);
      const body = JSON.parse((await gw.store.notificationsOf(g.referenceNo))[1]?.body as string);
      assert.deepEqual(
        [body.additionalInfo.payerIssuer, body.additionalInfo.payerName, body.additionalInfo.payerRefId],
        ['93600014', 'Siti / Ayu', '123456'],
      );
      // A change the machine forbids: 409, kept in the inbound log, nothing changes.
      const back = await notify(g.referenceNo, { latestTransactionStatus: '03' });
      assert.equal(back.status, 409);
      assert.deepEqual(back.body, { responseCode: '4095200', responseMessage: 'Conflict' });
      assert.deepEqual(await statuses(g.referenceNo), ['03', '00']);
      // The inbound log is written after the answer, in a batch: wait for it. Batches written from
      // different turns may commit in either order on PostgreSQL, so the call is looked for by what
      // it was, not by being the newest.
      await waitFor('the refused notify in the inbound log', async () => {
        const log = await gw.admin('GET', `/providers/${acquirer.id}/inbound?limit=50`);
        return (log.body.items as Array<{ responseCode: string | null; requestBody: string }>).some(
          (call) => call.responseCode === '4095200' && call.requestBody.includes(g.referenceNo),
        );
      });
    });

    it('refuses a notify of 04 or 05 (refunds and cancels are operations, not news): 409, nothing changes, logged', async () => {
      const g = await generate();
      const unpaid = await notify(g.referenceNo, { latestTransactionStatus: '05' });
      assert.deepEqual([unpaid.status, unpaid.body], [409, { responseCode: '4095200', responseMessage: 'Conflict' }]);
      assert.equal((await notify(g.referenceNo)).status, 200);
      const refunded = await notify(g.referenceNo, { latestTransactionStatus: '04' });
      assert.deepEqual([refunded.status, refunded.body.responseCode], [409, '4095200']);
      const txn = await gw.store.findTransaction(g.referenceNo);
      assert.deepEqual([txn?.status, txn?.refundedAmount], ['00', '0.00']);
      assert.deepEqual(await statuses(g.referenceNo), ['00'], 'the merchant hears of the payment only');
      await waitFor('the refused notify in the inbound log', async () => {
        const log = await gw.admin('GET', `/providers/${acquirer.id}/inbound?limit=50`);
        return (log.body.items as Array<{ responseCode: string | null; requestBody: string }>).some(
          (call) =>
            call.responseCode === '4095200' &&
            call.requestBody.includes(g.referenceNo) &&
            call.requestBody.includes('"04"'),
        );
      });
    });

    it('uses its own bankCode as payerIssuer when the acquirer sends none', async () => {
      const g = await generate();
      assert.equal((await notify(g.referenceNo, { additionalInfo: undefined })).status, 200);
      const body = JSON.parse((await gw.store.notificationsOf(g.referenceNo))[0]?.body as string);
      assert.deepEqual(
        [body.additionalInfo.payerIssuer, body.additionalInfo.payerName, body.additionalInfo.payerRefId],
        ['936', '', ''],
      );
    });

    it('refuses another amount with 4005201 and an unknown reference with 4045201', async () => {
      const g = await generate();
      assert.deepEqual((await notify(g.referenceNo, { amount: idr('25000.01') })).body, {
        responseCode: '4005201',
        responseMessage: 'Invalid Field Format {amount}',
      });
      assert.deepEqual((await notify('999999999999999999')).body, {
        responseCode: '4045201',
        responseMessage: 'Transaction Not Found',
      });
      const cases: Array<[Record<string, unknown>, string]> = [
        [{ originalPartnerReferenceNo: undefined }, '4005202'],
        [{ latestTransactionStatus: undefined }, '4005202'],
        [{ latestTransactionStatus: '09' }, '4005201'],
        [{ amount: undefined }, '4005202'],
        [{ additionalInfo: { payerIssuer: 'BANK X' } }, '4005201'],
      ];
      for (const [over, code] of cases) {
        assert.equal((await notify(g.referenceNo, over)).body.responseCode, code, JSON.stringify(over));
      }
      assert.deepEqual(await statuses(g.referenceNo), []);
    });

    it('routes a merchant’s QRIS to its own acquirer only', async () => {
      const routed = await gw.createMerchant({ name: 'Routed', qrisProvider: otherAcquirer.id });
      const rm = await authenticate(gw.url, routed);
      const g = await generate(rm);
      assert.deepEqual((await notify(g.referenceNo, {}, acquirer)).body, {
        responseCode: '4045201',
        responseMessage: 'Transaction Not Found',
      });
      assert.equal((await notify(g.referenceNo, {}, otherAcquirer)).status, 200);
      const bad = await gw.admin('POST', '/merchants', { name: 'Bad', qrisProvider: 'no-such-acquirer' });
      assert.equal(bad.status, 400);
      assert.match(bad.body.errors[0], /^qrisProvider: no acquirer/);
    });

    it('lets only the named acquirer notify a QRIS snapgate issued itself; one at a time; no bank', async () => {
      const g = await generate();
      // Another acquirer, and the sandbox acquirer now that one is named: as if the QRIS did not exist.
      assert.deepEqual((await notify(g.referenceNo, {}, otherAcquirer)).body, {
        responseCode: '4045201',
        responseMessage: 'Transaction Not Found',
      });
      const sandboxAcquirer = (await gw.store.getSetting('sandbox_acquirer_provider_id')) as string;
      assert.equal(
        (await gw.admin('POST', `/sandbox/qris/${g.referenceNo}/pay`, {})).body.responseCode,
        '4045201',
        'the sandbox acquirer pays only while no acquirer is named',
      );
      assert.deepEqual(await statuses(g.referenceNo), []);
      assert.equal((await notify(g.referenceNo)).status, 200);
      // One at a time: naming a second is a conflict until the first lets go.
      const second = await gw.admin('PATCH', `/providers/${otherAcquirer.id}`, { acquiresGatewayQris: true });
      assert.equal(second.status, 409, JSON.stringify(second.body));
      assert.match(second.body.detail, /another acquirer acquires the QRIS snapgate issues itself/);
      const bank = await gw.admin('POST', '/providers', {
        name: 'Not An Acquirer',
        kind: 'bank',
        bankCode: '451',
        acquiresGatewayQris: true,
      });
      assert.equal(bank.status, 400);
      assert.match(bank.body.errors.join(), /acquiresGatewayQris: only an acquirer/);
      assert.equal(
        (await gw.admin('GET', `/providers/${acquirer.id}`)).body.acquiresGatewayQris,
        true,
        'shown on the provider',
      );
      assert.equal((await gw.admin('GET', `/providers/${sandboxAcquirer}`)).body.acquiresGatewayQris, false);
    });

    it('refuses a bank’s and a merchant’s notify', async () => {
      const g = await generate();
      const bank = await gw.admin('POST', '/providers', { name: 'A Bank', kind: 'bank', bankCode: '002' });
      const token = await postToken(gw.url, { clientKey: bank.body.clientKey, clientSecret: bank.body.clientSecret });
      const asBank = await notify(
        g.referenceNo,
        {},
        {
          clientKey: bank.body.clientKey,
          clientSecret: bank.body.clientSecret,
          partnerId: bank.body.clientKey,
          accessToken: token.body.accessToken,
          id: bank.body.id,
        },
      );
      assert.equal(asBank.body.responseCode, '4045201');
      const asMerchant = await notify(g.referenceNo, {}, { ...merchant, id: 'm' });
      assert.deepEqual(asMerchant.body, { responseCode: '4015201', responseMessage: 'Invalid Token (B2B)' });
      assert.deepEqual(await statuses(g.referenceNo), []);
    });
  });
}

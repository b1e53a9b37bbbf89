// docs/clients.md#midtrans: Midtrans' official Node client (midtrans-client, its SnapBi class),
// unmodified, against a live gateway: only its base URL and keys are set. Every SNAP call it
// offers that snapgate serves, and its webhook verification of snapgate's rsa-sha256 callbacks.
import assert from 'node:assert/strict';
import { generateKeyPairSync, randomUUID } from 'node:crypto';
import { createRequire } from 'node:module';
import { after, before, describe, it } from 'node:test';
import { startGateway, type TestGateway, type TestMerchant } from '../helpers/gateway.ts';
import { type Receiver, startReceiver, waitFor } from '../helpers/receiver.ts';
import type { StoreUnderTest } from '../helpers/store-under-test.ts';

// A CommonJS package: required as its README does.
const require = createRequire(import.meta.url);
const { SnapBi, SnapBiConfig } = require('midtrans-client') as {
  SnapBi: any;
  SnapBiConfig: Record<string, unknown>;
};

type Answer = Record<string, any>;

export function midtransSuite(under: StoreUnderTest): void {
  describe(`Midtrans' SnapBi (midtrans-client), unmodified (${under.name})`, () => {
    let gw: TestGateway;
    let cleanup: () => Promise<void>;
    let merchant: TestMerchant;
    let receiver: Receiver;
    /** What SnapBi's own webhook check said of each callback the receiver took. */
    const verified: boolean[] = [];
    let n = 0;
    const ref = () => `MT-${Date.now()}-${++n}`;
    const idr = (value: string) => ({ value, currency: 'IDR' });

    before(async () => {
      const opened = await under.open();
      cleanup = opened.cleanup;
      gw = await startGateway({ ...(opened.store ? { store: opened.store } : {}), dispatch: true });
      const pem = await (await fetch(`${gw.url}/.well-known/snapgate/callback-public-key.pem`)).text();
      // The merchant's side: SnapBi verifies each callback with the gateway's public key.
      receiver = await startReceiver((req, res) => {
        const isVerified = SnapBi.notification()
          .withNotificationPayload(JSON.parse(req.body))
          .withSignature(req.headers['x-signature'])
          .withTimeStamp(req.headers['x-timestamp'])
          .withNotificationUrlPath(req.url)
          .isWebhookNotificationVerified() as boolean;
        verified.push(isVerified);
        res
          .writeHead(isVerified ? 200 : 401, { 'content-type': 'application/json' })
          .end(isVerified ? '{"responseCode":"2002600","responseMessage":"Success"}' : '{"responseCode":"4012600"}');
      });
      const keys = generateKeyPairSync('rsa', { modulusLength: 2048 });
      merchant = await gw.createMerchant({
        name: 'Midtrans client',
        publicKeyPem: keys.publicKey.export({ type: 'spki', format: 'pem' }),
        callbackSignature: 'rsa-sha256',
        callbackBaseUrl: receiver.baseUrl,
      });
      // Its configuration, as its README sets it: the base URL is the gateway's bare address
      // (SnapBi requests and signs /v1.0/…, which snapgate serves too).
      Object.assign(SnapBiConfig, {
        isProduction: false,
        SNAP_BI_SANDBOX_BASE_URL: gw.url,
        snapBiClientId: merchant.clientKey,
        snapBiPrivateKey: keys.privateKey.export({ type: 'pkcs8', format: 'pem' }),
        snapBiClientSecret: merchant.clientSecret,
        snapBiPartnerId: merchant.partnerId,
        snapBiChannelId: '95221',
        snapBiPublicKey: pem,
      });
    });
    after(async () => {
      await gw.close();
      await receiver.close();
      await cleanup();
    });

    it('takes a token with its {"grant_type":"client_credentials"} body', async () => {
      const token = (await SnapBi.qris().getAccessToken()) as Answer;
      assert.equal(token.responseCode, '2007100', JSON.stringify(token));
      assert.equal(typeof token.accessToken, 'string');
    });

    it('generates, queries, refunds and cancels QRIS; each call signed over its own /v1.0 path', async () => {
      const partnerReferenceNo = ref();
      const generated = (await SnapBi.qris()
        .withBody({ partnerReferenceNo, amount: idr('25000.00'), merchantId: merchant.id, additionalInfo: {} })
        .createPayment(randomUUID())) as Answer;
      assert.equal(generated.responseCode, '2004700', JSON.stringify(generated));
      assert.match(generated.qrContent, /^000201/);
      const referenceNo = generated.referenceNo as string;

      const queried = (await SnapBi.qris()
        .withBody({
          originalReferenceNo: referenceNo,
          originalPartnerReferenceNo: partnerReferenceNo,
          serviceCode: '47',
        })
        .getStatus(randomUUID())) as Answer;
      assert.equal(queried.responseCode, '2005100', JSON.stringify(queried));
      assert.equal(queried.latestTransactionStatus, '01');

      assert.equal((await gw.admin('POST', `/sandbox/qris/${referenceNo}/pay`, {})).status, 200);
      const refunded = (await SnapBi.qris()
        .withBody({
          originalReferenceNo: referenceNo,
          originalPartnerReferenceNo: partnerReferenceNo,
          partnerRefundNo: `RF-${partnerReferenceNo}`,
          refundAmount: idr('5000.00'),
          reason: 'customer asked',
        })
        .refund(randomUUID())) as Answer;
      assert.equal(refunded.responseCode, '2007800', JSON.stringify(refunded));

      const other = (await SnapBi.qris()
        .withBody({ partnerReferenceNo: ref(), amount: idr('1000.00') })
        .createPayment(randomUUID())) as Answer;
      const cancelled = (await SnapBi.qris()
        .withBody({ originalReferenceNo: other.referenceNo, reason: 'out of stock' })
        .cancel(randomUUID())) as Answer;
      assert.equal(cancelled.responseCode, '2007700', JSON.stringify(cancelled));
      assert.equal((await gw.store.findTransaction(other.referenceNo))?.status, '05');
    });

    it('creates a VA, reads its status, and deletes it with a POST, as SnapBi sends it', async () => {
      const trxId = ref();
      const created = (await SnapBi.va()
        .withBody({
          partnerServiceId: '    1234',
          customerNo: '0000000000001',
          virtualAccountNo: '    12340000000000001',
          virtualAccountName: 'Budi Santoso',
          virtualAccountEmail: 'budi@example.com',
          virtualAccountPhone: '6281234567890',
          trxId,
          totalAmount: idr('150000.00'),
          expiredDate: new Date(Date.now() + 3_600_000).toISOString().replace(/\.\d{3}Z$/, '+00:00'),
          additionalInfo: { merchantId: merchant.id, bank: 'bca', flags: { shouldRandomizeVaNumber: true } },
        })
        .createPayment(randomUUID())) as Answer;
      assert.equal(created.responseCode, '2002700', JSON.stringify(created));
      const va = created.virtualAccountData as Answer;
      const numbers = {
        partnerServiceId: va.partnerServiceId,
        customerNo: va.customerNo,
        virtualAccountNo: va.virtualAccountNo,
      };

      const status = (await SnapBi.va()
        .withBody({ ...numbers, inquiryRequestId: randomUUID() })
        .getStatus(randomUUID())) as Answer;
      assert.equal(status.responseCode, '2002600', JSON.stringify(status));
      assert.equal(status.virtualAccountData.paymentFlagStatus, '01');
      assert.deepEqual(status.virtualAccountData.paymentFlagReason, {
        english: 'Not Paid',
        indonesia: 'Belum Dibayar',
      });

      const deleted = (await SnapBi.va()
        .withBody({ ...numbers, trxId, additionalInfo: { merchantId: merchant.id } })
        .cancel(randomUUID())) as Answer;
      assert.equal(deleted.responseCode, '2003100', JSON.stringify(deleted));
      assert.deepEqual(deleted.virtualAccountData.additionalInfo, { merchantId: merchant.id });
      const txn = await gw.store.findTransactionByVirtualAccountNo(va.virtualAccountNo);
      assert.equal(txn?.status, '05');
    });

    it('verifies snapgate’s rsa-sha256 callbacks with its own isWebhookNotificationVerified, and refuses a forgery', async () => {
      const partnerReferenceNo = ref();
      const generated = (await SnapBi.qris()
        .withBody({ partnerReferenceNo, amount: idr('12000.00') })
        .createPayment(randomUUID())) as Answer;
      const before = verified.length;
      assert.equal((await gw.admin('POST', `/sandbox/qris/${generated.referenceNo}/pay`, {})).status, 200);
      const delivered = await waitFor('the callback acknowledged', async () => {
        const list = await gw.admin('GET', `/notifications?referenceNo=${generated.referenceNo}&state=delivered`);
        return (list.body.items as Answer[])[0];
      });
      assert.ok(delivered, 'acknowledged after SnapBi verified it');
      assert.ok(verified.slice(before).includes(true));
      // The same check on a body one byte off fails.
      const last = receiver.received[receiver.received.length - 1] as (typeof receiver.received)[number];
      const forged = JSON.parse(last.body.replace('"00"', '"06"'));
      assert.equal(
        SnapBi.notification()
          .withNotificationPayload(forged)
          .withSignature(last.headers['x-signature'])
          .withTimeStamp(last.headers['x-timestamp'])
          .withNotificationUrlPath(last.url)
          .isWebhookNotificationVerified(),
        false,
      );
      // SnapBi's own bug (docs/clients.md): its README passes the payload as a string, which it
      // hashes as a JSON string, so even the true callback fails that way.
      assert.equal(
        SnapBi.notification()
          .withNotificationPayload(last.body)
          .withSignature(last.headers['x-signature'])
          .withTimeStamp(last.headers['x-timestamp'])
          .withNotificationUrlPath(last.url)
          .isWebhookNotificationVerified(),
        false,
      );
    });
  });
}

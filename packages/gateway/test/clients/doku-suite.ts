// docs/clients.md#doku: DOKU's official Node library (doku-nodejs-library), unmodified, both ways.
// As a client of snapgate: its base URL set, its own paths served by the `doku` profile, every VA
// call it offers. As a merchant receiving snapgate's `snap-b2b` callbacks: it issues its token,
// reads the VA callback in SNAP's VA payment shape, and acknowledges with its own 2002700.
import assert from 'node:assert/strict';
import { generateKeyPairSync, randomUUID } from 'node:crypto';
import { createRequire } from 'node:module';
import { after, before, describe, it } from 'node:test';
import { startGateway, type TestGateway, type TestMerchant } from '../helpers/gateway.ts';
import { type Received, type Receiver, startReceiver, waitFor } from '../helpers/receiver.ts';
import type { StoreUnderTest } from '../helpers/store-under-test.ts';

// CommonJS, required as its README does; its Config is where its base URL lives.
const require = createRequire(import.meta.url);
const { Snap } = require('doku-nodejs-library') as { Snap: new (options: Record<string, unknown>) => any };
const Config = require('doku-nodejs-library/_commons/config') as Record<string, unknown>;
const model = (name: string) => require(`doku-nodejs-library/_models/${name}`) as new (...args: unknown[]) => any;
const CreateVARequestDto = model('createVaRequestDto');
const UpdateVaRequestDto = model('updateVaRequestDTO');
const DeleteVaRequestDto = model('deleteVaRequestDTO');
const CheckStatusVARequestDto = model('checkStatusVARequestDTO');
const AdditionalInfo = model('additionalInfo');
const VirtualAccountConfig = model('virtualAccountConfig');
const UpdateVaAdditionalInfoDto = model('updateVaAdditionalInfoDTO');
const UpdateVaVirtualAccountConfigDto = model('updateVaVirtualAccountConfigDTO');
const TotalAmount = model('totalAmount');

type Answer = Record<string, any>;

/** An Express-like request, as the library's merchant functions read one (`req.get(name)`). */
const expressLike = (r: Received) => ({
  get: (name: string) => r.headers[name.toLowerCase()] as string | undefined,
  headers: r.headers,
  body: JSON.parse(r.body || '{}'),
});

/** DOKU's expiredDate: seconds and an offset, no milliseconds. */
const dokuDate = (ms: number) => `${new Date(ms + 7 * 3_600_000).toISOString().slice(0, 19)}+07:00`;

export function dokuSuite(under: StoreUnderTest): void {
  describe(`DOKU's library (doku-nodejs-library), unmodified, both ways (${under.name})`, () => {
    let gw: TestGateway;
    let cleanup: () => Promise<void>;
    let merchant: TestMerchant;
    let receiver: Receiver;
    let snap: any;
    /** Each callback body the library's notification function took, and what it answered. */
    const notified: Array<{ body: Answer; answer: Answer }> = [];
    let n = 0;
    const trxId = () => `DK${Date.now()}${++n}`;

    before(async () => {
      const opened = await under.open();
      cleanup = opened.cleanup;
      gw = await startGateway({ ...(opened.store ? { store: opened.store } : {}), dispatch: true });
      const gatewayPem = await (await fetch(`${gw.url}/.well-known/snapgate/callback-public-key.pem`)).text();
      const keys = generateKeyPairSync('rsa', { modulusLength: 2048 });
      const privateKey = keys.privateKey.export({ type: 'pkcs8', format: 'pem' });
      const publicKey = keys.publicKey.export({ type: 'spki', format: 'pem' });
      // The merchant's server, written with the library's merchant functions.
      receiver = await startReceiver((req, res) => {
        const r = expressLike(req);
        if (req.url === '/token') {
          res
            .writeHead(200, { 'content-type': 'application/json' })
            .end(JSON.stringify(snap.validateSignatureAndGenerateToken(r)));
          return;
        }
        const answer = snap.validateTokenAndGenerateNotificationResponse(r.get('authorization'), r.body) as Answer;
        notified.push({ body: r.body, answer });
        res.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify(answer));
      });
      merchant = await gw.createMerchant({
        name: 'DOKU library',
        publicKeyPem: publicKey,
        callbackSignature: 'snap-b2b',
        callbackTokenUrl: `${receiver.baseUrl}/token`,
        vaCallbackUrl: `${receiver.baseUrl}/v1.1/transfer-va/payment`,
        qrisCallbackUrl: `${receiver.baseUrl}/qr`,
        callbackVaBody: 'snap-payment',
        callbackAck: 'any-200',
      });
      // Its base URL, set before the library is constructed (its constructor takes a token at once).
      Config.CORE_SANDBOX_BASE_URL = gw.url;
      snap = new Snap({
        isProduction: false,
        privateKey,
        clientID: merchant.clientKey,
        publicKey,
        dokuPublicKey: gatewayPem,
        issuer: 'merchant.example',
        secretKey: merchant.clientSecret,
      });
      await waitFor('the token its constructor asked for', () => snap.tokenB2B !== '' && snap.tokenB2B);
    });
    after(async () => {
      await gw.close();
      await receiver.close();
      await cleanup();
    });

    async function createVa(): Promise<Answer> {
      const dto = new CreateVARequestDto(
        '   88899',
        '00001',
        '   8889900001',
        'Budi Santoso',
        'budi@example.com',
        '6281234567890',
        trxId(),
        new TotalAmount('150000.00', 'IDR'),
        new AdditionalInfo('VIRTUAL_ACCOUNT_BANK_CIMB', new VirtualAccountConfig(false)),
        'C',
        dokuDate(Date.now() + 3_600_000),
      );
      dto.freeText = undefined;
      return (await snap.createVa(dto)) as Answer;
    }

    it('takes its token at DOKU’s own path, and creates a VA at DOKU’s path with its 50-character X-EXTERNAL-ID', async () => {
      assert.equal(typeof snap.tokenB2B, 'string');
      const created = await createVa();
      assert.equal(created.responseCode, '2002700', JSON.stringify(created));
      assert.equal(typeof created.virtualAccountData.additionalInfo, 'object');
      const txn = await gw.store.findTransactionByVirtualAccountNo(created.virtualAccountData.virtualAccountNo);
      assert.equal(txn?.status, '01');
    });

    it('updates (PUT), reads the status (with paymentFlagReason) and deletes (DELETE) the VA it created', async () => {
      const created = (await createVa()).virtualAccountData as Answer;
      const { partnerServiceId, customerNo, virtualAccountNo, trxId: id } = created;

      const update = new UpdateVaRequestDto(
        partnerServiceId,
        customerNo,
        virtualAccountNo,
        'Budi S.',
        'budi@example.com',
        '6281234567890',
        id,
        new TotalAmount('175000.00', 'IDR'),
        new UpdateVaAdditionalInfoDto('VIRTUAL_ACCOUNT_BANK_CIMB', new UpdateVaVirtualAccountConfigDto('ACTIVE')),
        'C',
        dokuDate(Date.now() + 7_200_000),
      );
      const updated = (await snap.updateVa(update)) as Answer;
      assert.equal(updated.responseCode, '2002800', JSON.stringify(updated));
      assert.equal((await gw.store.findTransactionByVirtualAccountNo(virtualAccountNo))?.amount, '175000.00');

      const status = (await snap.checkStatusVa(
        new CheckStatusVARequestDto(partnerServiceId, customerNo, virtualAccountNo, randomUUID(), null, {}),
      )) as Answer;
      assert.equal(status.responseCode, '2002600', JSON.stringify(status));
      assert.deepEqual(
        { ...status.virtualAccountData.paymentFlagReason },
        { english: 'Not Paid', indonesia: 'Belum Dibayar' },
      );

      const deleted = (await snap.deletePaymentCode(
        new DeleteVaRequestDto(
          partnerServiceId,
          customerNo,
          virtualAccountNo,
          id,
          // Its constructor wraps this as additionalInfo.channel.
          'VIRTUAL_ACCOUNT_BANK_CIMB',
        ),
      )) as Answer;
      assert.equal(deleted.responseCode, '2003100', JSON.stringify(deleted));
      assert.equal(deleted.virtualAccountData.additionalInfo.channel, 'VIRTUAL_ACCOUNT_BANK_CIMB');
      assert.equal((await gw.store.findTransactionByVirtualAccountNo(virtualAccountNo))?.status, '05');
    });

    it('as the merchant: issues its token to snapgate, reads the paid VA in SNAP’s payment shape, and its 2002700 acknowledges', async () => {
      const created = (await createVa()).virtualAccountData as Answer;
      const va = created.virtualAccountNo as string;
      assert.equal((await gw.admin('POST', `/sandbox/va/${encodeURIComponent(va)}/pay`, {})).status, 200);
      const txn = await gw.store.findTransactionByVirtualAccountNo(va);
      const delivered = await waitFor('the callback acknowledged', async () => {
        const list = await gw.admin('GET', `/notifications?referenceNo=${txn?.referenceNo}&state=delivered`);
        return (list.body.items as Answer[])[0];
      });
      assert.ok(delivered);
      const seen = notified.find((x) => x.body.virtualAccountNo === va);
      assert.ok(seen, 'the library read the callback');
      assert.equal(seen.answer.responseCode, 2002700, 'its acknowledgement, a number');
      assert.equal(seen.body.trxId, created.trxId);
      assert.equal(seen.body.paidAmount.value, '150000.00');
      assert.equal(seen.body.additionalInfo.latestTransactionStatus, '00');
      // Not that acknowledgement alone: the callback came with the JWT the library issued, which it checked.
      const callback = receiver.received.find((r) => r.url.endsWith('/transfer-va/payment') && r.body.includes(va));
      assert.match(String(callback?.headers.authorization), /^Bearer ey/);
    });

    it('never refreshes its token, its own bug (docs/clients.md): a token taken a day ago counts as valid', () => {
      const TokenController = require('doku-nodejs-library/_controllers/tokenController') as new () => {
        isTokenInvalid(token: string, expiresIn: number, generatedAt: number): boolean;
      };
      assert.equal(new TokenController().isTokenInvalid(snap.tokenB2B, 900, Date.now() - 86_400_000), false);
    });
  });
}

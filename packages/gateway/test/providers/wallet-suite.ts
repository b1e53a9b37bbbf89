// A real e-wallet the operator connects (docs/ewallets.md#real-wallets): snapgate makes the payment
// at the wallet over SNAP Direct Debit (54), forwards cancels (57) and refunds (58) there first,
// takes the wallet's notify (56), and recovers a lost notify by the wallet's status (55). The wallet
// is a real SNAP server over HTTP that checks every signature (test/helpers/wallet.ts). On both stores.
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { formatJakartaTimestamp } from '@snapgate/snap';
import { createManualClock } from '../../src/clock.ts';
import { startGateway, type TestGateway, type TestMerchant } from '../helpers/gateway.ts';
import { type Receiver, waitFor } from '../helpers/receiver.ts';
import { newExternalId, postToken, type SnapCaller, snapCall } from '../helpers/snap.ts';
import type { StoreUnderTest } from '../helpers/store-under-test.ts';
import {
  connectWallet,
  startWallet,
  startWalletWorld,
  type TestWallet,
  type WalletAnswerer,
} from '../helpers/wallet.ts';

const DEBIT = '/api/snap/v1.0/debit';
type Body = Record<string, any>;
const idr = (value: string) => ({ value, currency: 'IDR' });
let refs = 0;
const ref = () => `DANA-${Date.now()}-${++refs}`;
const order = (partnerReferenceNo: string, value = '50000.00', extra: Body = {}): Body => ({
  partnerReferenceNo,
  amount: idr(value),
  urlParams: [{ url: 'https://shop.example/orders/1', type: 'PAY_RETURN', isDeeplink: 'N' }],
  payOptionDetails: [{ payMethod: 'EMONEY', payOption: 'DANA', transAmount: idr(value) }],
  ...extra,
});

export function walletSuite(under: StoreUnderTest): void {
  describe(`a connected e-wallet over SNAP Direct Debit (${under.name})`, () => {
    let gw: TestGateway;
    let close: () => Promise<void>;
    let wallet: TestWallet;
    let receiver: Receiver;
    let c: SnapCaller;
    let dana: SnapCaller;
    let danaId: string;
    before(async () => {
      ({ gw, wallet, receiver, c, dana, danaId, close } = await startWalletWorld(under, 'Toko Dana'));
    });
    after(() => close());

    const pay = (body: Body, externalId?: string) =>
      snapCall(gw.url, c, `${DEBIT}/payment-host-to-host`, body, externalId ? { externalId } : {});
    const made = async (value = '50000.00') => {
      const r = await pay(order(ref(), value));
      assert.equal(r.status, 200, r.text);
      return r.body as { referenceNo: string; partnerReferenceNo: string; webRedirectUrl: string };
    };
    const notify = (referenceNo: string, status: string, value = '50000.00', by = dana) =>
      snapCall(gw.url, by, `${DEBIT}/notify`, {
        originalPartnerReferenceNo: referenceNo,
        originalReferenceNo: `W${referenceNo}`,
        latestTransactionStatus: status,
        amount: idr(value),
        additionalInfo: { payerName: 'SITI AMINAH', payerRefId: '081234567788' },
      });
    const paid = async (value = '50000.00') => {
      const t = await made(value);
      const n = await notify(t.referenceNo, '00', value);
      assert.equal(n.status, 200, n.text);
      assert.equal(n.body.responseCode, '2005600');
      return t;
    };
    const stored = async (referenceNo: string) => {
      const t = await gw.store.findTransaction(referenceNo);
      assert.ok(t);
      return t;
    };

    it('registers the wallet with its payOption and outbound settings, one active wallet per payOption', async () => {
      const view = (await gw.admin('GET', `/providers/${danaId}`)).body;
      assert.equal(view.kind, 'ewallet');
      assert.equal(view.payOption, 'DANA');
      assert.equal(view.bankCode, null);
      assert.equal(view.outbound.baseUrl, wallet.baseUrl);
      assert.equal(JSON.stringify(view).includes(wallet.outbound.clientSecret), false, 'no secret shown');
      const twin = await gw.admin('POST', '/providers', {
        name: 'DANA again',
        kind: 'ewallet',
        payOption: 'DANA',
        outbound: wallet.outbound,
      });
      assert.equal(twin.status, 409, JSON.stringify(twin.body));
      assert.match(twin.body.detail, /payOption DANA is already served by an active e-wallet/);
      // Its outbound settings stay: without them no payment of it could be made, canceled or refunded.
      const cleared = await gw.admin('PATCH', `/providers/${danaId}`, { outbound: null });
      assert.equal(cleared.status, 400, JSON.stringify(cleared.body));
      assert.match(cleared.body.errors.join('\n'), /outbound: required for an e-wallet/);
      const coded = await gw.admin('PATCH', `/providers/${danaId}`, { bankCode: '014' });
      assert.equal(coded.status, 400, JSON.stringify(coded.body));
      assert.match(coded.body.errors.join('\n'), /bankCode: an e-wallet has no bank code/);
    });

    it('makes the payment at the wallet under its referenceNo and answers with the wallet’s redirect', async () => {
      const partnerReferenceNo = ref();
      const externalId = newExternalId();
      const r = await pay(order(partnerReferenceNo, '50000.00'), externalId);
      assert.equal(r.status, 200, r.text);
      const { referenceNo } = r.body;
      assert.equal(r.body.responseCode, '2005400');
      assert.equal(r.body.partnerReferenceNo, partnerReferenceNo);
      assert.equal(r.body.webRedirectUrl, `https://wallet.example/authorise/W${referenceNo}`);
      assert.equal(r.body.appRedirectUrl, `walletapp://authorise?ref=W${referenceNo}`);
      assert.match(r.body.additionalInfo.checkoutUrl, /\/pay\/[\w-]+$/);

      const [sent] = wallet
        .callsTo('debit/payment-host-to-host')
        .filter((x) => x.body.partnerReferenceNo === referenceNo);
      assert.ok(sent, 'the wallet got the payment under snapgate’s referenceNo');
      assert.deepEqual(sent.body.amount, idr('50000.00'));
      assert.equal(sent.body.merchantId, wallet.outbound.partnerId);
      assert.deepEqual(sent.body.payOptionDetails, [
        { payMethod: 'EMONEY', payOption: 'DANA', transAmount: idr('50000.00') },
      ]);
      // The payer comes back to the checkout page; the wallet notifies the gateway's door.
      assert.deepEqual(sent.body.urlParams, [
        { url: r.body.additionalInfo.checkoutUrl, type: 'PAY_RETURN', isDeeplink: 'N' },
        { url: `${gw.url}/api/snap/v1.0/debit/notify`, type: 'PAY_NOTIFY', isDeeplink: 'N' },
      ]);
      assert.match(sent.body.validUpTo, /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\+07:00$/);

      // The same X-EXTERNAL-ID again: the same answer, and the wallet is not called twice.
      const again = await pay(order(partnerReferenceNo, '50000.00'), externalId);
      assert.deepEqual(again.body, r.body);
      assert.equal(
        wallet.callsTo('debit/payment-host-to-host').filter((x) => x.body.partnerReferenceNo === referenceNo).length,
        1,
      );
      const t = await stored(referenceNo);
      assert.equal(t.kind, 'ewallet');
      assert.equal(t.status, '01');
      // The order has its payment: another X-EXTERNAL-ID for it is a duplicate.
      const dup = await pay(order(partnerReferenceNo, '50000.00'));
      assert.deepEqual(dup.body, { responseCode: '4095401', responseMessage: 'Duplicate partnerReferenceNo' });
    });

    it('takes the wallet’s notify and tells the merchant, naming the wallet', async () => {
      const t = await paid();
      const txn = await stored(t.referenceNo);
      assert.equal(txn.status, '00');
      assert.equal(txn.paidAmount, '50000.00');
      const told = await waitFor('the 00 callback', () =>
        receiver.received.find((r) => r.body.includes(t.referenceNo) && r.body.includes('"00"')),
      );
      assert.equal(told.url, '/v1.0/debit/notify');
      const body = JSON.parse(told.body);
      assert.equal(body.additionalInfo.payOption, 'DANA');
      // payerIssuer is digits in every callback: a connected wallet has no bank code, payOption names it.
      assert.equal(body.additionalInfo.payerIssuer, '');
      assert.equal(body.additionalInfo.payerName, 'SITI AMINAH');
      const status = await snapCall(gw.url, c, `${DEBIT}/status`, {
        originalReferenceNo: t.referenceNo,
        serviceCode: '54',
      });
      assert.equal(status.body.latestTransactionStatus, '00');
      assert.equal(status.body.additionalInfo.walletReferenceNo, `W${t.referenceNo}`);
    });

    it('refuses a notify from another wallet: nothing changes', async () => {
      const t = await made();
      const ovo = await connectWallet(gw, wallet, 'OVO');
      const r = await notify(t.referenceNo, '00', '50000.00', ovo.caller);
      assert.deepEqual(r.body, { responseCode: '4045601', responseMessage: 'Transaction Not Found' });
      assert.equal((await stored(t.referenceNo)).status, '01');
    });

    it('refunds in parts at the wallet first, under one stable partnerRefundNo each', async () => {
      const t = await paid();
      const refund = (partnerRefundNo: string, value: string) =>
        snapCall(gw.url, c, `${DEBIT}/refund`, {
          originalPartnerReferenceNo: t.partnerReferenceNo,
          partnerRefundNo,
          refundAmount: idr(value),
        });
      const first = await refund(`${t.partnerReferenceNo}-R1`, '20000.00');
      assert.equal(first.status, 200, first.text);
      assert.equal(first.body.responseCode, '2005800');
      const [sent] = wallet.callsTo('debit/refund').filter((x) => x.body.originalPartnerReferenceNo === t.referenceNo);
      assert.ok(sent);
      assert.match(sent.body.partnerRefundNo, /^SG[0-9a-f]{30}$/);
      assert.deepEqual(sent.body.refundAmount, idr('20000.00'));
      assert.equal(sent.body.originalReferenceNo, `W${t.referenceNo}`);
      assert.equal((await stored(t.referenceNo)).refundedAmount, '20000.00');

      const r2 = `${t.partnerReferenceNo}-R2`;
      const sentFor = (amount: string) =>
        wallet
          .callsTo('debit/refund')
          .filter((x) => x.body.originalPartnerReferenceNo === t.referenceNo && x.body.refundAmount.value === amount);
      const refusedWith = async (status: number, responseCode: string) => {
        wallet.answer('debit/refund', () => ({ status, body: { responseCode, responseMessage: 'No' } }));
        try {
          const refused = await refund(r2, '10000.00');
          assert.deepEqual(refused.body, { responseCode: '5005802', responseMessage: 'External Server Error' });
          const after = await stored(t.referenceNo);
          assert.deepEqual([after.status, after.refundedAmount], ['00', '20000.00'], 'nothing refunded here');
        } finally {
          wallet.answer('debit/refund', undefined);
        }
      };
      // The wallet refuses: the merchant hears 500 xx02, and nothing is refunded here. A 409 that
      // is not the wallet's refund conflict is a refusal too.
      await refusedWith(400, '4005801');
      await refusedWith(409, '4091000');
      // The same refund again, which the wallet had taken (its 409 refund conflict): taken here too.
      wallet.answer('debit/refund', () => ({
        status: 409,
        body: { responseCode: '4095800', responseMessage: 'Conflict' },
      }));
      try {
        const taken = await refund(r2, '10000.00');
        assert.equal(taken.status, 200, taken.text);
      } finally {
        wallet.answer('debit/refund', undefined);
      }
      // Every try of that refund reached the wallet under one number; a refund of another amount
      // under another, so a wallet's conflict never stands for money it did not move.
      const numbers = new Set(sentFor('10000.00').map((x) => x.body.partnerRefundNo));
      assert.equal(numbers.size, 1);
      const rest = await refund(`${t.partnerReferenceNo}-R3`, '20000.00');
      assert.equal(rest.status, 200, rest.text);
      assert.ok(!numbers.has(sentFor('20000.00').at(-1)?.body.partnerRefundNo));
      const end = await stored(t.referenceNo);
      assert.deepEqual([end.status, end.refundedAmount], ['04', '50000.00']);
    });

    it('cancels at the wallet first; a cancel the wallet refuses changes nothing', async () => {
      const t = await made();
      wallet.answer('debit/cancel', () => ({ status: 404, body: { responseCode: '4045701', responseMessage: 'No' } }));
      try {
        const refused = await snapCall(gw.url, c, `${DEBIT}/cancel`, {
          originalPartnerReferenceNo: t.partnerReferenceNo,
        });
        assert.deepEqual(refused.body, { responseCode: '5005702', responseMessage: 'External Server Error' });
        assert.equal((await stored(t.referenceNo)).status, '01');
      } finally {
        wallet.answer('debit/cancel', undefined);
      }
      const r = await snapCall(gw.url, c, `${DEBIT}/cancel`, {
        originalPartnerReferenceNo: t.partnerReferenceNo,
        reason: 'out of stock',
      });
      assert.equal(r.status, 200, r.text);
      const sent = wallet.callsTo('debit/cancel').filter((x) => x.body.originalPartnerReferenceNo === t.referenceNo);
      assert.equal(sent.at(-1)?.body.reason, 'out of stock');
      assert.equal((await stored(t.referenceNo)).status, '05');
    });

    it('answers 500 xx02 when the wallet refuses or answers no redirect, 504 when it is too slow; the order may be retried', async () => {
      const cases: Array<[string, WalletAnswerer, Body]> = [
        [
          'a refusal',
          () => ({ status: 403, body: { responseCode: '4035401', responseMessage: 'Feature Not Allowed' } }),
          { responseCode: '5005402', responseMessage: 'External Server Error' },
        ],
        [
          'no SNAP',
          () => ({ raw: '<html>gateway error</html>' }),
          { responseCode: '5005402', responseMessage: 'External Server Error' },
        ],
        [
          'no redirect',
          () => ({ status: 200, body: { responseCode: '2005400', responseMessage: 'Successful', referenceNo: 'W1' } }),
          { responseCode: '5005402', responseMessage: 'External Server Error' },
        ],
        [
          'a script as the redirect',
          () => ({
            status: 200,
            body: { responseCode: '2005400', responseMessage: 'Ok', webRedirectUrl: 'javascript:alert(1)' },
          }),
          { responseCode: '5005402', responseMessage: 'External Server Error' },
        ],
        ['no answer in time', () => ({ hold: true }), { responseCode: '5045400', responseMessage: 'Timeout' }],
      ];
      for (const [what, how, expected] of cases) {
        const partnerReferenceNo = ref();
        wallet.answer('debit/payment-host-to-host', how);
        let failedRef: string | undefined;
        try {
          const r = await pay(order(partnerReferenceNo));
          assert.deepEqual(r.body, expected, what);
          const sent = wallet.callsTo('debit/payment-host-to-host').at(-1);
          failedRef = sent?.body.partnerReferenceNo;
        } finally {
          wallet.answer('debit/payment-host-to-host', undefined);
        }
        assert.ok(failedRef, what);
        const failed = await stored(failedRef);
        assert.deepEqual([failed.status, failed.statusDesc], ['06', 'Upstream Failed'], what);
        // The wallet may hold it all the same: it is canceled there.
        await waitFor(`${what}: the cancel at the wallet`, () =>
          wallet
            .callsTo('debit/cancel')
            .find((x) => x.body.originalPartnerReferenceNo === failedRef && x.body.reason === 'upstream failed'),
        );
        // Nothing was told: the merchant's answer was the error.
        assert.deepEqual(await gw.store.notificationsOf(failedRef), [], what);
        const retried = await pay(order(partnerReferenceNo));
        assert.equal(retried.status, 200, `${what}: ${retried.text}`);
        assert.notEqual(retried.body.referenceNo, failedRef);
      }
    });

    it('passes on a deep link, never a link that is not an app’s', async () => {
      const links: Array<[string, string | undefined]> = [
        ['dana://pay?ref=1', 'dana://pay?ref=1'],
        ['https://link.wallet.example/pay/1', 'https://link.wallet.example/pay/1'],
        ['javascript:alert(1)', undefined],
        ['intent://pay#Intent;scheme=x;end', undefined],
        ['data:text/html,<b>x</b>', undefined],
        ['not a url', undefined],
      ];
      for (const [given, passed] of links) {
        wallet.answer('debit/payment-host-to-host', (b) => {
          const taken = wallet.taking('debit/payment-host-to-host', b) as { status: number; body: Body };
          return { status: 200, body: { ...taken.body, appRedirectUrl: given } };
        });
        try {
          const r = await pay(order(ref()));
          assert.equal(r.status, 200, r.text);
          assert.equal(r.body.appRedirectUrl, passed, given);
          const kept = await stored(r.body.referenceNo);
          assert.equal(kept.kind === 'ewallet' ? kept.details.appRedirectUrl : 'not a wallet payment', passed, given);
        } finally {
          wallet.answer('debit/payment-host-to-host', undefined);
        }
      }
    });

    it('keeps the wallet’s answer when its notify came first, and answers a retry in flight with 409', async () => {
      // The wallet tells of the payment before it answers the call that made it.
      wallet.answer('debit/payment-host-to-host', async (b) => {
        const n = await notify(b.partnerReferenceNo, '00');
        assert.equal(n.status, 200, n.text);
        return wallet.taking('debit/payment-host-to-host', b);
      });
      try {
        const r = await pay(order(ref()));
        assert.equal(r.status, 200, r.text);
        const t = await stored(r.body.referenceNo);
        assert.equal(t.status, '00');
        assert.equal(t.kind === 'ewallet' && t.details.webRedirectUrl, r.body.webRedirectUrl);
      } finally {
        wallet.answer('debit/payment-host-to-host', undefined);
      }
      // A retry (the same X-EXTERNAL-ID) while the wallet still works on the first: 409, then the original.
      let release = () => {};
      const gate = new Promise<void>((r) => {
        release = r;
      });
      wallet.answer('debit/payment-host-to-host', async (b) => {
        await gate;
        return wallet.taking('debit/payment-host-to-host', b);
      });
      try {
        const externalId = newExternalId();
        const body = order(ref());
        const before = wallet.callsTo('debit/payment-host-to-host').length;
        const first = pay(body, externalId);
        await waitFor('the wallet working on it', () => wallet.callsTo('debit/payment-host-to-host').length > before);
        const twin = await pay(body, externalId);
        assert.deepEqual(twin.body, { responseCode: '4095400', responseMessage: 'Conflict' });
        release();
        const original = await first;
        assert.equal(original.status, 200, original.text);
        assert.deepEqual((await pay(body, externalId)).body, original.body);
      } finally {
        release();
        wallet.answer('debit/payment-host-to-host', undefined);
      }
    });

    it('refuses a payment for a disabled wallet with 403 Pay Option Not Available', async () => {
      const ovo = (await gw.admin('GET', '/providers')).body.items.find((p: Body) => p.payOption === 'OVO');
      const id: string = ovo?.id ?? (await connectWallet(gw, wallet, 'OVO')).view.id;
      assert.equal((await gw.admin('PATCH', `/providers/${id}`, { status: 'disabled' })).status, 200);
      const body = order(ref(), '10000.00', {
        payOptionDetails: [{ payMethod: 'EMONEY', payOption: 'OVO', transAmount: idr('10000.00') }],
      });
      const r = await pay(body);
      assert.deepEqual(r.body, {
        responseCode: '4035401',
        responseMessage: 'Feature Not Allowed [Pay Option Not Available]',
      });
    });
  });

  describe(`a lost wallet notify, recovered by the wallet’s status (${under.name})`, () => {
    let gw: TestGateway;
    let cleanup: () => Promise<void>;
    let wallet: TestWallet;
    let m: TestMerchant;
    // validUpTo has whole seconds: the clock starts on one.
    const clock = createManualClock(Math.floor(Date.now() / 1000) * 1000);
    before(async () => {
      wallet = await startWallet();
      const opened = await under.open();
      cleanup = opened.cleanup;
      gw = await startGateway({ store: opened.store, clock, env: { SNAPGATE_RATE_LIMIT: 'off' } });
      await connectWallet(gw, wallet);
      m = await gw.createMerchant({ name: 'Toko Hilang' });
    });
    after(async () => {
      await gw.close();
      await cleanup();
      await wallet.close();
    });

    /** A payment valid for ten minutes from the clock's now; its referenceNo. */
    const payable = async () => {
      const timestamp = formatJakartaTimestamp(clock.now());
      // A token of the clock's now: the clock runs ahead of its lifetime from test to test.
      const token = await postToken(gw.url, { clientKey: m.clientKey, clientSecret: m.clientSecret, timestamp });
      assert.equal(token.status, 200, token.text);
      const c: SnapCaller = { ...m, accessToken: token.body.accessToken };
      const validUpTo = formatJakartaTimestamp(clock.now() + 10 * 60_000);
      const r = await snapCall(gw.url, c, `${DEBIT}/payment-host-to-host`, order(ref(), '50000.00', { validUpTo }), {
        timestamp: formatJakartaTimestamp(clock.now()),
      });
      assert.equal(r.status, 200, r.text);
      return r.body.referenceNo as string;
    };
    const statusOf = async (referenceNo: string) => (await gw.store.findTransaction(referenceNo))?.status;

    it('asks the wallet a minute past validUpTo, and applies the payment it reports', async () => {
      const referenceNo = await payable();
      wallet.answer('debit/status', (b) => ({
        status: 200,
        body: {
          responseCode: '2005500',
          responseMessage: 'Successful',
          originalPartnerReferenceNo: b.originalPartnerReferenceNo,
          latestTransactionStatus: '00',
          amount: idr('50000.00'),
          additionalInfo: { payerName: 'BUDI' },
        },
      }));
      try {
        // At validUpTo the payer may still be approving at the wallet: not yet.
        clock.advance(10 * 60_000);
        await gw.gateway.expiry.runOnce();
        assert.equal(await statusOf(referenceNo), '01');
        assert.equal(wallet.callsTo('debit/status').length, 0);
        clock.advance(60_000);
        await gw.gateway.expiry.runOnce();
        const [asked] = wallet.callsTo('debit/status');
        assert.ok(asked);
        assert.deepEqual(
          [asked.body.originalPartnerReferenceNo, asked.body.originalReferenceNo, asked.body.serviceCode],
          [referenceNo, `W${referenceNo}`, '54'],
        );
        const t = await gw.store.findTransaction(referenceNo);
        assert.deepEqual([t?.status, t?.paidAmount], ['00', '50000.00']);
        assert.equal(t?.details.payer?.payerName, 'BUDI');
        assert.deepEqual(
          (await gw.store.notificationsOf(referenceNo)).map((n) => n.latestStatus),
          ['00'],
        );
        assert.equal(wallet.callsTo('debit/cancel').length, 0);
      } finally {
        wallet.answer('debit/status', undefined);
      }
    });

    it('applies a decline the wallet reports, and an amount it writes without its cents; never another amount', async () => {
      const statusAnswer = (latestTransactionStatus: string, value: string) => () => ({
        status: 200,
        body: { responseCode: '2005500', responseMessage: 'Ok', latestTransactionStatus, amount: idr(value) },
      });
      const declined = await payable();
      const paidWhole = await payable();
      const other = await payable();
      const answers: Record<string, ReturnType<typeof statusAnswer>> = {
        [declined]: statusAnswer('06', '50000.00'),
        [paidWhole]: statusAnswer('00', '50000'),
        [other]: statusAnswer('00', '40000.00'),
      };
      wallet.answer('debit/status', (b) =>
        (answers[b.originalPartnerReferenceNo] as ReturnType<typeof statusAnswer>)(),
      );
      try {
        clock.advance(11 * 60_000);
        await gw.gateway.expiry.runOnce();
        assert.equal(await statusOf(declined), '06');
        assert.equal(await statusOf(paidWhole), '00');
        assert.equal(await statusOf(other), '01', 'another amount: nothing applied');
        const canceled = wallet.callsTo('debit/cancel').map((x) => x.body.originalPartnerReferenceNo);
        assert.equal(canceled.includes(declined) || canceled.includes(paidWhole) || canceled.includes(other), false);
      } finally {
        wallet.answer('debit/status', undefined);
      }
      // Asked again later, it is still open at the wallet: canceled there, expired here.
      clock.advance(30_000);
      await gw.gateway.expiry.runOnce();
      assert.equal(await statusOf(other), '06');
    });

    it('cancels at the wallet one it still reports open, and expires it here', async () => {
      const referenceNo = await payable();
      clock.advance(11 * 60_000);
      await gw.gateway.expiry.runOnce();
      const canceled = wallet.callsTo('debit/cancel').filter((x) => x.body.originalPartnerReferenceNo === referenceNo);
      assert.equal(canceled.length, 1);
      assert.equal(canceled[0]?.body.reason, 'expired');
      const t = await gw.store.findTransaction(referenceNo);
      assert.deepEqual([t?.status, t?.statusDesc], ['06', 'Expired']);
    });

    it('tries again later, backing off, while the wallet does not answer', async () => {
      const referenceNo = await payable();
      wallet.answer('debit/status', () => ({
        status: 503,
        body: { responseCode: '5035500', responseMessage: 'Down' },
      }));
      try {
        clock.advance(11 * 60_000);
        await gw.gateway.expiry.runOnce();
        const t = await gw.store.findTransaction(referenceNo);
        assert.equal(t?.status, '01');
        assert.equal(t?.expiresAt, clock.now() + 30_000, 'asked again in 30 s');
      } finally {
        wallet.answer('debit/status', undefined);
      }
      clock.advance(30_000);
      await gw.gateway.expiry.runOnce();
      assert.equal(await statusOf(referenceNo), '06');
    });
  });
}

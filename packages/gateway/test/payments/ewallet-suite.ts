// E-wallet payments over SNAP Direct Debit (docs/ewallets.md), with the sandbox wallet SANDBOXPAY:
// create (54), status (55), cancel (57) and refund (58) as a merchant; the sandbox payer, which pays
// through the wallet's notify door (56) over HTTP; that door refusing a merchant; the merchant's
// callbacks at the payment's PAY_NOTIFY url or at <callbackBaseUrl>/v1.0/debit/notify; expiry on an
// injected clock; and concurrent refunds. On both stores.
import assert from 'node:assert/strict';
import { createHash, createHmac } from 'node:crypto';
import { after, before, describe, it } from 'node:test';
import { formatJakartaTimestamp } from '@snapgate/snap';
import { createManualClock } from '../../src/clock.ts';
import { ADMIN_TOKEN, startGateway, type TestGateway, type TestMerchant } from '../helpers/gateway.ts';
import { ACK, type Received, type Receiver, startReceiver, waitFor } from '../helpers/receiver.ts';
import { authenticate, newExternalId, postToken, type SnapCaller, snapCall } from '../helpers/snap.ts';
import type { StoreUnderTest } from '../helpers/store-under-test.ts';

const DEBIT = '/api/snap/v1.0/debit';
/** The e-wallet acknowledgement (2002600, the general one, is taken too). */
const WALLET_ACK = '{"responseCode":"2005600","responseMessage":"Success"}';
/** Where the payments that name their own PAY_NOTIFY url are told, on the receiver. */
const OWN_NOTIFY_PATH = '/own/wallet-notify';
const FAST = {
  SNAPGATE_RETRY_SCHEDULE: '0s,50ms,50ms,50ms',
  SNAPGATE_CALLBACK_TIMEOUT_MS: '2000',
  SNAPGATE_RATE_LIMIT: 'off',
};

type Body = Record<string, unknown>;
const snap = (responseCode: string, responseMessage: string) => ({ responseCode, responseMessage });
const idr = (value: string) => ({ value, currency: 'IDR' });
let refs = 0;
const ref = () => `EW-${Date.now()}-${++refs}`;

/** The one pay option of a valid order. */
const sandboxPay = (value = '10000.00', over: Body = {}) => ({
  payMethod: 'EMONEY',
  payOption: 'SANDBOXPAY',
  transAmount: idr(value),
  ...over,
});
/** A valid Direct Debit order for the sandbox wallet. */
const debitOrder = (partnerReferenceNo: string, value = '10000.00', extra: Body = {}): Body => ({
  partnerReferenceNo,
  amount: idr(value),
  payOptionDetails: [sandboxPay(value)],
  ...extra,
});
/** A valid order without one of its fields. */
const without = (field: string): Body =>
  Object.fromEntries(Object.entries(debitOrder(ref())).filter(([k]) => k !== field));
const inAnHour = () => formatJakartaTimestamp(Date.now() + 60 * 60_000);

/** Money strings as whole cents, to add them up without floating point. */
const cents = (value: string) => {
  const m = /^(\d+)\.(\d{2})$/.exec(value);
  assert.ok(m, `a money value: ${value}`);
  return Number(m[1]) * 100 + Number(m[2]);
};

const JAKARTA_TIME = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\+07:00$/;

interface Created {
  responseCode: string;
  responseMessage: string;
  referenceNo: string;
  partnerReferenceNo: string;
  webRedirectUrl: string;
  additionalInfo: { checkoutUrl: string };
}

/** A callback as the merchant got it, parsed. */
interface Told {
  originalPartnerReferenceNo: string;
  originalReferenceNo: string;
  latestTransactionStatus: string;
  transactionStatusDesc: string;
  amount: { value: string; currency: string };
  additionalInfo: Record<string, any>;
}

const parsed = (r: Received): Told | undefined => {
  try {
    return JSON.parse(r.body) as Told;
  } catch {
    return undefined;
  }
};

/** Signed as every callback is (docs/protocol.md#callback-signature), checked here independently. */
function assertSigned(r: Received, m: TestMerchant): void {
  assert.equal(r.method, 'POST');
  assert.match(String(r.headers['content-type']), /^application\/json/);
  assert.equal(r.headers['x-partner-id'], m.partnerId);
  assert.match(String(r.headers['x-external-id']), /^\d{20}$/);
  const ts = String(r.headers['x-timestamp']);
  assert.match(ts, JAKARTA_TIME);
  const hash = createHash('sha256').update(r.body).digest('hex');
  const expected = createHmac('sha512', m.clientSecret)
    .update(`POST:${r.url}:${m.partnerId}:${hash}:${ts}`)
    .digest('base64');
  assert.equal(r.headers['x-signature'], expected, 'HMAC-SHA512 over the path the receiver saw');
}

export function ewalletSuite(under: StoreUnderTest): void {
  describe(`e-wallet payments over SNAP Direct Debit, sandbox wallet SANDBOXPAY (${under.name})`, () => {
    let gw: TestGateway;
    let cleanup: () => Promise<void>;
    let receiver: Receiver;
    let m: TestMerchant;
    let c: SnapCaller;
    let other: SnapCaller;
    before(async () => {
      // The merchant's own callbacks are acknowledged with the e-wallet code, the PAY_NOTIFY ones with
      // the general one: both must count as delivered.
      receiver = await startReceiver((req, res) => {
        res
          .writeHead(200, { 'content-type': 'application/json' })
          .end(req.url.startsWith(OWN_NOTIFY_PATH) ? ACK : WALLET_ACK);
      });
      const opened = await under.open();
      cleanup = opened.cleanup;
      gw = await startGateway({ store: opened.store, dispatch: true, env: FAST });
      m = await gw.createMerchant({ name: 'Toko Dompet', callbackBaseUrl: `${receiver.baseUrl}/shop` });
      c = await authenticate(gw.url, m);
      other = await authenticate(gw.url, await gw.createMerchant({ name: 'Another Shop' }));
    });
    after(async () => {
      await gw.close();
      await cleanup();
      await receiver.close();
    });

    const createCall = (caller: SnapCaller, body: unknown, externalId?: string) =>
      snapCall(gw.url, caller, `${DEBIT}/payment-host-to-host`, body, externalId ? { externalId } : {});
    const create = async (value = '10000.00', extra: Body = {}): Promise<Created> => {
      const r = await createCall(c, debitOrder(ref(), value, extra));
      assert.equal(r.status, 200, r.text);
      return r.body as Created;
    };
    const statusCall = (caller: SnapCaller, body: Body) => snapCall(gw.url, caller, `${DEBIT}/status`, body);
    const statusOf = async (referenceNo: string) => {
      const r = await statusCall(c, { originalReferenceNo: referenceNo, serviceCode: '54' });
      assert.equal(r.status, 200, r.text);
      assert.equal(r.body.responseCode, '2005500');
      return r.body;
    };
    const cancelCall = (caller: SnapCaller, body: Body) => snapCall(gw.url, caller, `${DEBIT}/cancel`, body);
    const refundCall = (
      caller: SnapCaller,
      t: Pick<Created, 'referenceNo' | 'partnerReferenceNo'>,
      partnerRefundNo: string,
      value: string,
      o: { externalId?: string; reason?: string } = {},
    ) =>
      snapCall(
        gw.url,
        caller,
        `${DEBIT}/refund`,
        {
          originalPartnerReferenceNo: t.partnerReferenceNo,
          originalReferenceNo: t.referenceNo,
          partnerRefundNo,
          refundAmount: idr(value),
          ...(o.reason === undefined ? {} : { reason: o.reason }),
        },
        o.externalId ? { externalId: o.externalId } : {},
      );
    const sandboxPayCall = (referenceNo: string, body: Body = {}) =>
      gw.admin('POST', `/sandbox/ewallet/${encodeURIComponent(referenceNo)}/pay`, body);
    /** The gateway's own record, polled until it is in `status` (the wallet tells it over HTTP). */
    const untilStatus = (referenceNo: string, status: string) =>
      waitFor(`${referenceNo} in ${status}`, async () => {
        const t = await gw.store.findTransaction(referenceNo);
        return t?.status === status ? t : undefined;
      });
    /** The payer approves (00) or declines (06) in the sandbox wallet. */
    const pay = async (referenceNo: string, body: Body = {}, becomes = '00') => {
      const r = await sandboxPayCall(referenceNo, body);
      assert.equal(r.status, 200, JSON.stringify(r.body));
      assert.equal(r.body.referenceNo, referenceNo);
      assert.equal(r.body.kind, 'ewallet');
      await untilStatus(referenceNo, becomes);
      return r.body;
    };
    /** The first callback of `referenceNo` the receiver got that `matches`. */
    const toldOf = (referenceNo: string, matches: (b: Told) => boolean) =>
      waitFor(`the callback of ${referenceNo}`, () =>
        receiver.received.find((r) => {
          if (!r.body.includes(referenceNo)) return false;
          const b = parsed(r);
          return b !== undefined && b.originalReferenceNo === referenceNo && matches(b);
        }),
      );
    /** The stored notification is the one sent, and the receiver's answer made it delivered. */
    const assertDelivered = async (referenceNo: string, r: Received) => {
      const stored = (await gw.store.notificationsOf(referenceNo)).find((n) => n.body === r.body);
      assert.ok(stored, 'the stored bytes are the bytes sent');
      assert.equal(r.headers['x-external-id'], stored.id);
      await waitFor(
        `notification ${stored.id} delivered`,
        async () => (await gw.store.findNotification(stored.id))?.state === 'delivered',
      );
    };

    describe('payment-host-to-host (54)', () => {
      it('creates a SANDBOXPAY payment: an 18-digit referenceNo, the sandbox wallet’s page and the checkout page under one id', async () => {
        const partnerReferenceNo = ref();
        const r = await createCall(
          c,
          debitOrder(partnerReferenceNo, '10000.00', { additionalInfo: { deviceId: 'D1' } }),
        );
        assert.equal(r.status, 200, r.text);
        assert.deepEqual(Object.keys(r.body), [
          'responseCode',
          'responseMessage',
          'referenceNo',
          'partnerReferenceNo',
          'webRedirectUrl',
          'additionalInfo',
        ]);
        assert.equal(r.body.responseCode, '2005400');
        assert.equal(r.body.responseMessage, 'Successful');
        assert.match(r.body.referenceNo, /^\d{18,}$/);
        assert.equal(r.body.partnerReferenceNo, partnerReferenceNo);
        assert.deepEqual(Object.keys(r.body.additionalInfo), ['checkoutUrl']);
        const checkoutUrl: string = r.body.additionalInfo.checkoutUrl;
        const checkoutId = checkoutUrl.split('/').at(-1) as string;
        assert.match(checkoutId, /^[A-Za-z0-9_-]+$/);
        assert.equal(checkoutUrl, `${gw.url}/pay/${checkoutId}`);
        assert.equal(r.body.webRedirectUrl, `${gw.url}/pay/${checkoutId}/wallet`);
        const stored = await gw.store.findTransactionByCheckoutId(checkoutId);
        assert.equal(stored?.referenceNo, r.body.referenceNo);
        assert.equal(stored?.kind, 'ewallet');
        assert.equal(stored?.status, '01');
        assert.equal(stored?.amount, '10000.00');
      });

      it('gives every payment its own referenceNo and checkout id', async () => {
        const [a, b] = [await create(), await create()];
        assert.notEqual(a.referenceNo, b.referenceNo);
        assert.notEqual(a.additionalInfo.checkoutUrl, b.additionalInfo.checkoutUrl);
        assert.notEqual(a.webRedirectUrl, b.webRedirectUrl);
      });

      it('answers an idempotent replay (same X-EXTERNAL-ID, same body) with the first answer, byte for byte', async () => {
        const externalId = newExternalId();
        const body = debitOrder(ref());
        const first = await createCall(c, body, externalId);
        assert.equal(first.status, 200, first.text);
        const again = await createCall(c, body, externalId);
        assert.equal(again.status, 200, again.text);
        assert.equal(again.text, first.text);
        assert.equal(again.body.referenceNo, first.body.referenceNo);
      });

      it('answers 409 4095401 for the same partnerReferenceNo under a new X-EXTERNAL-ID', async () => {
        const partnerReferenceNo = ref();
        const first = await createCall(c, debitOrder(partnerReferenceNo));
        assert.equal(first.status, 200, first.text);
        const r = await createCall(c, debitOrder(partnerReferenceNo));
        assert.equal(r.status, 409);
        assert.deepEqual(r.body, snap('4095401', 'Duplicate partnerReferenceNo'));
      });

      it('accepts the optional fields: a validUpTo in the future, urlParams of both types, additionalInfo', async () => {
        const r = await createCall(
          c,
          debitOrder(ref(), '10000.00', {
            validUpTo: inAnHour(),
            urlParams: [
              { url: 'https://shop.example/orders/1/return', type: 'PAY_RETURN', isDeeplink: 'N' },
              { url: `${receiver.baseUrl}${OWN_NOTIFY_PATH}`, type: 'PAY_NOTIFY', isDeeplink: 'N' },
            ],
            additionalInfo: { note: 'first order' },
          }),
        );
        assert.equal(r.status, 200, r.text);
        assert.equal(r.body.responseCode, '2005400');
      });

      it('answers 403 4035401 for a payOption no wallet serves', async () => {
        const r = await createCall(c, {
          ...debitOrder(ref()),
          payOptionDetails: [sandboxPay('10000.00', { payOption: 'NOPE' })],
        });
        assert.equal(r.status, 403);
        assert.deepEqual(r.body, snap('4035401', 'Feature Not Allowed [Pay Option Not Available]'));
      });

      describe('field rules', () => {
        const mandatory = (field: string) => snap('4005402', `Invalid Mandatory Field {${field}}`);
        const format = (field: string) => snap('4005401', `Invalid Field Format {${field}}`);
        /** Invalid Field Format naming a field under `prefix` (amount.value, payOptionDetails[0]…). */
        const formatUnder = (prefix: string) => ({
          responseCode: '4005401',
          message: new RegExp(`^Invalid Field Format \\{${prefix}`),
        });
        const bad: Array<[string, () => unknown, ReturnType<typeof snap> | ReturnType<typeof formatUnder>]> = [
          ['partnerReferenceNo missing', () => without('partnerReferenceNo'), mandatory('partnerReferenceNo')],
          [
            'partnerReferenceNo empty',
            () => ({ ...debitOrder(ref()), partnerReferenceNo: '' }),
            mandatory('partnerReferenceNo'),
          ],
          ['partnerReferenceNo of 65 characters', () => debitOrder('x'.repeat(65)), format('partnerReferenceNo')],
          [
            'partnerReferenceNo a number',
            () => ({ ...debitOrder(ref()), partnerReferenceNo: 12 }),
            format('partnerReferenceNo'),
          ],
          ['amount missing', () => without('amount'), mandatory('amount')],
          ['amount a string', () => ({ ...debitOrder(ref()), amount: '10000.00' }), formatUnder('amount')],
          [
            'amount.value with one decimal (10.5)',
            () => ({ ...debitOrder(ref()), amount: idr('10.5') }),
            formatUnder('amount'),
          ],
          [
            'amount.value without decimals',
            () => ({ ...debitOrder(ref()), amount: idr('10000') }),
            formatUnder('amount'),
          ],
          [
            'amount.value a JSON number',
            () => ({ ...debitOrder(ref()), amount: { value: 10000, currency: 'IDR' } }),
            formatUnder('amount'),
          ],
          ['amount.value zero', () => ({ ...debitOrder(ref()), amount: idr('0.00') }), formatUnder('amount')],
          ['amount.value negative', () => ({ ...debitOrder(ref()), amount: idr('-1.00') }), formatUnder('amount')],
          [
            'amount.currency USD',
            () => ({ ...debitOrder(ref()), amount: { value: '10000.00', currency: 'USD' } }),
            formatUnder('amount'),
          ],
          ['payOptionDetails missing', () => without('payOptionDetails'), mandatory('payOptionDetails')],
          [
            'payOptionDetails empty',
            () => ({ ...debitOrder(ref()), payOptionDetails: [] }),
            mandatory('payOptionDetails'),
          ],
          [
            'payOptionDetails an object, not a list',
            () => ({ ...debitOrder(ref()), payOptionDetails: sandboxPay() }),
            formatUnder('payOptionDetails'),
          ],
          [
            'payOptionDetails with two entries',
            () => ({ ...debitOrder(ref()), payOptionDetails: [sandboxPay(), sandboxPay()] }),
            formatUnder('payOptionDetails'),
          ],
          [
            'payOptionDetails[0].payMethod not EMONEY',
            () => ({ ...debitOrder(ref()), payOptionDetails: [sandboxPay('10000.00', { payMethod: 'CARD' })] }),
            formatUnder('payOptionDetails'),
          ],
          [
            'payOptionDetails[0].transAmount other than amount',
            () => ({ ...debitOrder(ref()), payOptionDetails: [sandboxPay('5000.00')] }),
            formatUnder('payOptionDetails'),
          ],
          [
            'payOptionDetails[0].transAmount in another currency',
            () => ({
              ...debitOrder(ref()),
              payOptionDetails: [sandboxPay('10000.00', { transAmount: { value: '10000.00', currency: 'USD' } })],
            }),
            formatUnder('payOptionDetails'),
          ],
          [
            'urlParams entry of type PAY_LATER',
            () =>
              debitOrder(ref(), '10000.00', {
                urlParams: [{ url: 'https://shop.example/n', type: 'PAY_LATER', isDeeplink: 'N' }],
              }),
            formatUnder('urlParams'),
          ],
          [
            'urlParams entry whose url is not a URL',
            () =>
              debitOrder(ref(), '10000.00', {
                urlParams: [{ url: 'not a url', type: 'PAY_NOTIFY', isDeeplink: 'N' }],
              }),
            formatUnder('urlParams'),
          ],
          [
            'urlParams entry whose url is ftp:',
            () =>
              debitOrder(ref(), '10000.00', {
                urlParams: [{ url: 'ftp://shop.example/n', type: 'PAY_NOTIFY', isDeeplink: 'N' }],
              }),
            formatUnder('urlParams'),
          ],
          [
            'urlParams entry whose url is javascript:',
            () =>
              debitOrder(ref(), '10000.00', {
                urlParams: [{ url: 'javascript:alert(1)', type: 'PAY_RETURN', isDeeplink: 'N' }],
              }),
            formatUnder('urlParams'),
          ],
          [
            'urlParams entry with isDeeplink other than Y or N',
            () =>
              debitOrder(ref(), '10000.00', {
                urlParams: [{ url: 'https://shop.example/r', type: 'PAY_RETURN', isDeeplink: 'yes' }],
              }),
            formatUnder('urlParams'),
          ],
          [
            'urlParams an object, not a list',
            () =>
              debitOrder(ref(), '10000.00', {
                urlParams: { url: 'https://shop.example/r', type: 'PAY_RETURN', isDeeplink: 'N' },
              }),
            formatUnder('urlParams'),
          ],
          [
            'validUpTo in the past',
            () => debitOrder(ref(), '10000.00', { validUpTo: '2020-01-01T00:00:00+07:00' }),
            format('validUpTo'),
          ],
          [
            'validUpTo not a timestamp',
            () => debitOrder(ref(), '10000.00', { validUpTo: 'tomorrow' }),
            format('validUpTo'),
          ],
          [
            'additionalInfo a list',
            () => debitOrder(ref(), '10000.00', { additionalInfo: [] }),
            format('additionalInfo'),
          ],
          [
            'two urlParams entries of one type',
            () =>
              debitOrder(ref(), '10000.00', {
                urlParams: [
                  { url: 'https://shop.example/a', type: 'PAY_RETURN', isDeeplink: 'N' },
                  { url: 'https://shop.example/b', type: 'PAY_RETURN', isDeeplink: 'N' },
                ],
              }),
            format('urlParams[1].type'),
          ],
          [
            'a urlParams url with credentials',
            () =>
              debitOrder(ref(), '10000.00', {
                urlParams: [{ url: 'https://user:pass@shop.example/n', type: 'PAY_NOTIFY', isDeeplink: 'N' }],
              }),
            format('urlParams[0].url'),
          ],
          [
            'a urlParams url over 2048 characters',
            () =>
              debitOrder(ref(), '10000.00', {
                urlParams: [{ url: `https://shop.example/${'a'.repeat(2040)}`, type: 'PAY_RETURN', isDeeplink: 'N' }],
              }),
            format('urlParams[0].url'),
          ],
          [
            'a PAY_NOTIFY url at a cloud metadata address',
            () =>
              debitOrder(ref(), '10000.00', {
                urlParams: [{ url: 'http://169.254.169.254/latest', type: 'PAY_NOTIFY', isDeeplink: 'N' }],
              }),
            format('urlParams[0].url'),
          ],
          [
            'a PAY_NOTIFY url with a fragment',
            () =>
              debitOrder(ref(), '10000.00', {
                urlParams: [{ url: 'https://shop.example/n#here', type: 'PAY_NOTIFY', isDeeplink: 'N' }],
              }),
            format('urlParams[0].url'),
          ],
          [
            'an additionalInfo.returnUrl that is no http(s) URL',
            () => debitOrder(ref(), '10000.00', { additionalInfo: { returnUrl: 'ftp://shop.example/back' } }),
            format('additionalInfo.returnUrl'),
          ],
        ];
        for (const [name, body, expected] of bad) {
          it(`answers 400 ${expected.responseCode} for ${name}`, async () => {
            const r = await createCall(c, body());
            assert.equal(r.status, 400, r.text);
            if ('message' in expected) {
              assert.equal(r.body.responseCode, expected.responseCode, r.text);
              assert.match(r.body.responseMessage, expected.message);
            } else {
              assert.deepEqual(r.body, expected);
            }
          });
        }
      });
    });

    describe('status (55)', () => {
      it('shows an unpaid payment as 01 by either reference, with its pay option and no paidTime', async () => {
        const t = await create('10000.00');
        for (const by of [
          { originalReferenceNo: t.referenceNo },
          { originalPartnerReferenceNo: t.partnerReferenceNo },
          { originalReferenceNo: t.referenceNo, originalPartnerReferenceNo: t.partnerReferenceNo },
        ]) {
          const r = await statusCall(c, { ...by, serviceCode: '54' });
          assert.equal(r.status, 200, r.text);
          assert.equal(r.body.responseCode, '2005500');
          assert.equal(r.body.originalReferenceNo, t.referenceNo);
          assert.equal(r.body.originalPartnerReferenceNo, t.partnerReferenceNo);
          assert.equal(r.body.serviceCode, '54');
          assert.equal(r.body.latestTransactionStatus, '01');
          assert.equal(r.body.transactionStatusDesc, 'Initiated');
          assert.deepEqual(r.body.amount, idr('10000.00'));
          assert.equal(r.body.paidTime, undefined);
          assert.equal(r.body.additionalInfo.payOption, 'SANDBOXPAY');
        }
      });

      it('answers 400 4005502 without either reference', async () => {
        const r = await statusCall(c, { serviceCode: '54' });
        assert.equal(r.status, 400);
        assert.equal(r.body.responseCode, '4005502');
        assert.match(r.body.responseMessage, /^Invalid Mandatory Field \{original(Partner)?ReferenceNo\}$/);
      });

      it('answers 400 for a serviceCode missing (4005502) or not 54 (4005501)', async () => {
        const t = await create();
        const missing = await statusCall(c, { originalReferenceNo: t.referenceNo });
        assert.equal(missing.status, 400);
        assert.deepEqual(missing.body, snap('4005502', 'Invalid Mandatory Field {serviceCode}'));
        const qris = await statusCall(c, { originalReferenceNo: t.referenceNo, serviceCode: '47' });
        assert.equal(qris.status, 400);
        assert.deepEqual(qris.body, snap('4005501', 'Invalid Field Format {serviceCode}'));
      });

      it('answers 404 4045501 for an unknown reference and for another merchant’s payment', async () => {
        const t = await create();
        const notFound = snap('4045501', 'Transaction Not Found');
        for (const [caller, by] of [
          [c, { originalReferenceNo: '000000000000000000' }],
          [c, { originalPartnerReferenceNo: `NOBODY-${ref()}` }],
          [other, { originalReferenceNo: t.referenceNo }],
          [other, { originalPartnerReferenceNo: t.partnerReferenceNo }],
        ] as const) {
          const r = await statusCall(caller, { ...by, serviceCode: '54' });
          assert.equal(r.status, 404, r.text);
          assert.deepEqual(r.body, notFound);
        }
      });
    });

    describe('the sandbox wallet (POST /admin/v1/sandbox/ewallet/:referenceNo/pay)', () => {
      it('approves (00 by default): the answer is the transaction view, and status shows paidTime and the 1.50 % fee', async () => {
        const t = await create('10000.00');
        const r = await sandboxPayCall(t.referenceNo, { payerName: 'SITI' });
        assert.equal(r.status, 200, JSON.stringify(r.body));
        assert.equal(r.body.referenceNo, t.referenceNo);
        assert.equal(r.body.kind, 'ewallet');
        assert.equal(r.body.status, '00');
        await untilStatus(t.referenceNo, '00');
        const s = await statusOf(t.referenceNo);
        assert.equal(s.latestTransactionStatus, '00');
        assert.equal(s.transactionStatusDesc, 'Success');
        assert.match(s.paidTime, JAKARTA_TIME);
        assert.deepEqual(s.amount, idr('10000.00'));
        assert.deepEqual(s.feeAmount, idr('150.00'));
        assert.equal(s.additionalInfo.payOption, 'SANDBOXPAY');
      });

      it('declines with status 06: status 55 shows 06 and no paidTime', async () => {
        const t = await create();
        await pay(t.referenceNo, { status: '06' }, '06');
        const s = await statusOf(t.referenceNo);
        assert.equal(s.latestTransactionStatus, '06');
        assert.equal(s.transactionStatusDesc, 'Declined');
        assert.equal(s.paidTime, undefined);
      });

      it('answers 404 for an unknown referenceNo', async () => {
        const r = await sandboxPayCall('000000000000000000', {});
        assert.equal(r.status, 404, JSON.stringify(r.body));
      });

      it('takes the same answer again as a repeat, refuses a decline once paid (409), and leaves it paid', async () => {
        const t = await create();
        await pay(t.referenceNo);
        // A wallet that repeats its notify (a timeout on its side) changes nothing and is answered.
        const again = await sandboxPayCall(t.referenceNo, {});
        assert.equal(again.status, 200, JSON.stringify(again.body));
        assert.equal(
          (await gw.store.listNotifications({ referenceNo: t.referenceNo }, { limit: 10 })).items.filter(
            (n) => n.latestStatus === '00',
          ).length,
          1,
        );
        const declined = await sandboxPayCall(t.referenceNo, { status: '06' });
        assert.equal(declined.status, 409, JSON.stringify(declined.body));
        assert.equal((await gw.store.findTransaction(t.referenceNo))?.status, '00');
      });

      it('answers 400 for a status other than 00 or 06, and changes nothing', async () => {
        const t = await create();
        for (const status of ['03', '04', 'paid']) {
          const r = await sandboxPayCall(t.referenceNo, { status });
          assert.equal(r.status, 400, `${status}: ${JSON.stringify(r.body)}`);
        }
        assert.equal((await statusOf(t.referenceNo)).latestTransactionStatus, '01');
      });
    });

    describe('the wallet’s notify door (56)', () => {
      it('refuses a merchant’s token, and no token, with 401 4015601, and the payment stays 01', async () => {
        const t = await create('10000.00');
        const body = {
          originalPartnerReferenceNo: t.referenceNo,
          originalReferenceNo: 'W1',
          latestTransactionStatus: '00',
          amount: idr('10000.00'),
        };
        const asMerchant = await snapCall(gw.url, c, `${DEBIT}/notify`, body);
        assert.equal(asMerchant.status, 401, asMerchant.text);
        assert.deepEqual(asMerchant.body, snap('4015601', 'Invalid Token (B2B)'));
        const anonymous = await snapCall(gw.url, c, `${DEBIT}/notify`, body, { headers: { authorization: undefined } });
        assert.equal(anonymous.status, 401, anonymous.text);
        assert.deepEqual(anonymous.body, snap('4015601', 'Invalid Token (B2B)'));
        assert.equal((await statusOf(t.referenceNo)).latestTransactionStatus, '01');
        assert.equal((await gw.store.findTransaction(t.referenceNo))?.status, '01');
      });

      /** A provider of the gateway, with its B2B token: the sandbox wallet, or an acquirer connected here. */
      const providerCaller = async (clientKey: string, clientSecret: string): Promise<SnapCaller> => {
        const token = await postToken(gw.url, { clientKey, clientSecret });
        assert.equal(token.status, 200, JSON.stringify(token.body));
        return { clientKey, clientSecret, partnerId: clientKey, accessToken: token.body.accessToken };
      };
      const sandboxWallet = async () => {
        const id = await gw.store.getSetting('sandbox_wallet_provider_id');
        const p = id ? await gw.store.findProviderById(id) : undefined;
        assert.ok(p, 'the sandbox wallet exists in sandbox mode');
        assert.deepEqual([p.kind, p.payOption], ['ewallet', 'SANDBOXPAY']);
        return providerCaller(p.clientKey, p.clientSecret);
      };
      const told = (referenceNo: string, over: Body = {}) => ({
        originalPartnerReferenceNo: referenceNo,
        originalReferenceNo: `W-${referenceNo}`,
        latestTransactionStatus: '00',
        amount: idr('10000.00'),
        additionalInfo: { payerName: 'ANI' },
        ...over,
      });

      it('refuses another provider’s notify of a payment with 404 4045601, and nothing changes', async () => {
        const t = await create('10000.00');
        const made = await gw.admin('POST', '/providers', {
          name: `Acquirer ${ref()}`,
          kind: 'acquirer',
          bankCode: '936',
        });
        assert.equal(made.status, 201, JSON.stringify(made.body));
        const acquirer = await providerCaller(made.body.clientKey, made.body.clientSecret);
        const r = await snapCall(gw.url, acquirer, `${DEBIT}/notify`, told(t.referenceNo));
        assert.equal(r.status, 404, r.text);
        assert.deepEqual(r.body, snap('4045601', 'Transaction Not Found'));
        assert.equal((await gw.store.findTransaction(t.referenceNo))?.status, '01');
      });

      it('refuses another wallet’s notify of a payment (404 4045601), and a refund no wallet can take (403)', async () => {
        const t = await create('10000.00');
        // A second wallet, as an operator's would be (this version connects none through the API).
        const other = {
          id: `wallet-${ref()}`,
          name: 'Other Wallet',
          kind: 'ewallet' as const,
          bankCode: '998',
          clientKey: `other-wallet-${ref()}`,
          clientSecret: 'other-wallet-secret-0123456789abcdef',
          previousSecret: null,
          previousValidUntil: null,
          secretVersion: 1,
          publicKeyPem: null,
          outbound: null,
          isSandbox: false,
          acquiresGatewayQris: false,
          payOption: `OTHERPAY${refs}`,
          status: 'active' as const,
          createdAt: Date.now(),
          updatedAt: Date.now(),
        };
        await gw.store.insertProvider(other);
        const asOther = await providerCaller(other.clientKey, other.clientSecret);
        const r = await snapCall(gw.url, asOther, `${DEBIT}/notify`, told(t.referenceNo));
        assert.equal(r.status, 404, r.text);
        assert.deepEqual(r.body, snap('4045601', 'Transaction Not Found'));
        assert.equal((await gw.store.findTransaction(t.referenceNo))?.status, '01');
        // A paid payment of that wallet: the gateway cannot refund it there, so it refunds nothing.
        const stored = await gw.store.findTransaction(t.referenceNo);
        assert.ok(stored?.kind === 'ewallet');
        const theirs = {
          ...stored,
          referenceNo: `9${stored.referenceNo.slice(1)}`,
          partnerReferenceNo: ref(),
          checkoutId: null,
          details: { ...stored.details, providerId: other.id, payOption: other.payOption },
        };
        await gw.store.insertTransaction(theirs);
        const paidThere = await snapCall(gw.url, asOther, `${DEBIT}/notify`, told(theirs.referenceNo));
        assert.equal(paidThere.status, 200, paidThere.text);
        const refund = await refundCall(c, theirs, `${theirs.partnerReferenceNo}-1`, '1000.00');
        assert.equal(refund.status, 403, refund.text);
        assert.deepEqual(refund.body, snap('4035801', 'Feature Not Allowed [Pay Option Not Available]'));
        assert.equal((await gw.store.findTransaction(theirs.referenceNo))?.refundedAmount, '0.00');
      });

      it('refuses a forged signature (401), another amount (400 4005601) and a refund or cancel told (409 4095600)', async () => {
        const t = await create('10000.00');
        const wallet = await sandboxWallet();
        const forged = await snapCall(
          gw.url,
          { ...wallet, clientSecret: 'not-the-secret' },
          `${DEBIT}/notify`,
          told(t.referenceNo),
        );
        assert.equal(forged.status, 401, forged.text);
        assert.equal(forged.body.responseCode, '4015600');
        const other = await snapCall(
          gw.url,
          wallet,
          `${DEBIT}/notify`,
          told(t.referenceNo, { amount: idr('9999.00') }),
        );
        assert.equal(other.status, 400, other.text);
        assert.deepEqual(other.body, snap('4005601', 'Invalid Field Format {amount}'));
        for (const status of ['04', '05', '01']) {
          const r = await snapCall(
            gw.url,
            wallet,
            `${DEBIT}/notify`,
            told(t.referenceNo, { latestTransactionStatus: status }),
          );
          assert.equal(r.status, 409, `${status}: ${r.text}`);
          assert.deepEqual(r.body, snap('4095600', 'Conflict'));
        }
        assert.equal((await gw.store.findTransaction(t.referenceNo))?.status, '01');
        assert.equal((await gw.store.notificationsOf(t.referenceNo)).length, 0);
      });

      it('recovers a lost notify from the wallet’s report: a reconciliation applies it through the door, once', async () => {
        const t = await create('10000.00');
        const walletId = (await gw.store.getSetting('sandbox_wallet_provider_id')) as string;
        const report = `referenceNo,providerReference,amount,paidAt,status\r\n${t.referenceNo},W-LOST-1,10000.00,${formatJakartaTimestamp(Date.now())},\r\n`;
        const res = await fetch(`${gw.url}/admin/v1/providers/${walletId}/reconciliations`, {
          method: 'POST',
          headers: { authorization: `Bearer ${ADMIN_TOKEN}`, 'content-type': 'text/csv' },
          body: report,
        });
        type Problem = { type: string; line: number | null; referenceNo: string | null };
        const run = (await res.json()) as { id: string; problems: Problem[] };
        assert.equal(res.status, 201, JSON.stringify(run));
        // The wallet's other payments of this suite are not in the report: those are its own lines.
        const mine = (problems: Problem[]) => problems.filter((p) => p.referenceNo === t.referenceNo);
        assert.deepEqual(
          mine(run.problems).map((p) => [p.type, p.line]),
          [['missing_at_gateway', 1]],
        );
        const applied = await gw.admin('POST', `/reconciliations/${run.id}/problems/1/apply`);
        assert.equal(applied.status, 200, JSON.stringify(applied.body));
        assert.equal((await gw.admin('POST', `/reconciliations/${run.id}/problems/1/apply`)).status, 409);
        const stored = await gw.store.findTransaction(t.referenceNo);
        assert.equal(stored?.status, '00');
        assert.equal(stored?.kind === 'ewallet' ? stored.details.walletReferenceNo : undefined, 'W-LOST-1');
        assert.match(
          (await gw.store.statusHistory(t.referenceNo)).at(-1)?.reason ?? '',
          new RegExp(`^applied from reconciliation ${run.id} line 1 by admin key bootstrap \\(wallet ${walletId}\\)$`),
        );
        // Reported again in a later run, it matches: nothing to apply.
        const again = await fetch(`${gw.url}/admin/v1/providers/${walletId}/reconciliations`, {
          method: 'POST',
          headers: { authorization: `Bearer ${ADMIN_TOKEN}`, 'content-type': 'text/csv' },
          body: report.replace(`${t.referenceNo},W-LOST-1`, `,W-LOST-1`),
        });
        const second = (await again.json()) as { problems: Problem[] };
        assert.equal(again.status, 201, JSON.stringify(second));
        assert.deepEqual(mine(second.problems), []);
        assert.deepEqual(
          second.problems.filter((p) => p.line === 1),
          [],
        );
      });

      it('takes the wallet’s own notify: 2005600, paid with the payer it named, and a repeat changes nothing', async () => {
        const t = await create('10000.00');
        const wallet = await sandboxWallet();
        const first = await snapCall(gw.url, wallet, `${DEBIT}/notify`, told(t.referenceNo));
        assert.equal(first.status, 200, first.text);
        assert.deepEqual(first.body, snap('2005600', 'Successful'));
        const again = await snapCall(gw.url, wallet, `${DEBIT}/notify`, told(t.referenceNo));
        assert.deepEqual([again.status, again.body], [200, snap('2005600', 'Successful')]);
        const stored = await gw.store.findTransaction(t.referenceNo);
        assert.equal(stored?.status, '00');
        assert.equal(stored?.kind === 'ewallet' ? stored.details.payer?.payerName : undefined, 'ANI');
        assert.equal(stored?.kind === 'ewallet' ? stored.details.walletReferenceNo : undefined, `W-${t.referenceNo}`);
        assert.deepEqual(
          (await gw.store.notificationsOf(t.referenceNo)).map((n) => n.latestStatus),
          ['00'],
        );
      });
    });

    describe('cancel (57)', () => {
      it('cancels an unpaid payment: 2005700, then status 05', async () => {
        const t = await create();
        const r = await cancelCall(c, { originalPartnerReferenceNo: t.partnerReferenceNo, reason: 'customer left' });
        assert.equal(r.status, 200, r.text);
        assert.equal(r.body.responseCode, '2005700');
        assert.equal(r.body.originalReferenceNo, t.referenceNo);
        assert.equal(r.body.originalPartnerReferenceNo, t.partnerReferenceNo);
        assert.match(r.body.cancelTime, JAKARTA_TIME);
        assert.match(r.body.transactionDate, JAKARTA_TIME);
        const s = await statusOf(t.referenceNo);
        assert.equal(s.latestTransactionStatus, '05');
        assert.equal(s.transactionStatusDesc, 'Canceled');
        // The payer can no longer pay it.
        assert.equal((await sandboxPayCall(t.referenceNo, {})).status, 409);
      });

      it('cancels by both references', async () => {
        const t = await create();
        const r = await cancelCall(c, {
          originalPartnerReferenceNo: t.partnerReferenceNo,
          originalReferenceNo: t.referenceNo,
        });
        assert.equal(r.status, 200, r.text);
        assert.equal(r.body.responseCode, '2005700');
        assert.equal((await statusOf(t.referenceNo)).latestTransactionStatus, '05');
      });

      it('refuses to cancel a paid payment with 405 4055701, and it stays paid', async () => {
        const t = await create();
        await pay(t.referenceNo);
        const r = await cancelCall(c, { originalPartnerReferenceNo: t.partnerReferenceNo });
        assert.equal(r.status, 405, r.text);
        assert.deepEqual(r.body, snap('4055701', 'Requested Operation Is Not Allowed'));
        assert.equal((await statusOf(t.referenceNo)).latestTransactionStatus, '00');
      });

      it('answers 404 4045701 for an unknown payment and for another merchant’s, which stays 01', async () => {
        const t = await create();
        const notFound = snap('4045701', 'Transaction Not Found');
        const unknown = await cancelCall(c, { originalPartnerReferenceNo: `NOBODY-${ref()}` });
        assert.equal(unknown.status, 404, unknown.text);
        assert.deepEqual(unknown.body, notFound);
        const foreign = await cancelCall(other, { originalPartnerReferenceNo: t.partnerReferenceNo });
        assert.equal(foreign.status, 404, foreign.text);
        assert.deepEqual(foreign.body, notFound);
        const foreignBoth = await cancelCall(other, {
          originalPartnerReferenceNo: t.partnerReferenceNo,
          originalReferenceNo: t.referenceNo,
        });
        assert.deepEqual(foreignBoth.body, notFound);
        assert.equal((await statusOf(t.referenceNo)).latestTransactionStatus, '01');
      });

      it('answers 400 4005702 without originalPartnerReferenceNo', async () => {
        const t = await create();
        const r = await cancelCall(c, { originalReferenceNo: t.referenceNo });
        assert.equal(r.status, 400, r.text);
        assert.deepEqual(r.body, snap('4005702', 'Invalid Mandatory Field {originalPartnerReferenceNo}'));
        assert.equal((await statusOf(t.referenceNo)).latestTransactionStatus, '01');
      });
    });

    describe('refund (58)', () => {
      it('refunds in parts, refuses more than is left (404 4045813), and becomes 04 once all is refunded', async () => {
        const t = await create('10000.00');
        await pay(t.referenceNo);
        const r1 = await refundCall(c, t, `${t.partnerReferenceNo}-1`, '3000.10', { reason: 'return' });
        assert.equal(r1.status, 200, r1.text);
        assert.equal(r1.body.responseCode, '2005800');
        assert.equal(r1.body.originalPartnerReferenceNo, t.partnerReferenceNo);
        assert.equal(r1.body.originalReferenceNo, t.referenceNo);
        assert.equal(typeof r1.body.refundNo, 'string');
        assert.ok(r1.body.refundNo.length > 0);
        assert.equal(r1.body.partnerRefundNo, `${t.partnerReferenceNo}-1`);
        assert.deepEqual(r1.body.refundAmount, idr('3000.10'));
        assert.match(r1.body.refundTime, JAKARTA_TIME);
        assert.equal((await statusOf(t.referenceNo)).latestTransactionStatus, '00', 'a part leaves it paid');

        const tooMuch = await refundCall(c, t, `${t.partnerReferenceNo}-2`, '6999.91');
        assert.equal(tooMuch.status, 404, tooMuch.text);
        assert.deepEqual(tooMuch.body, snap('4045813', 'Invalid Amount'));

        const r2 = await refundCall(c, t, `${t.partnerReferenceNo}-3`, '6999.90');
        assert.equal(r2.status, 200, r2.text);
        assert.notEqual(r2.body.refundNo, r1.body.refundNo);
        const s = await statusOf(t.referenceNo);
        assert.equal(s.latestTransactionStatus, '04');
        assert.equal(s.transactionStatusDesc, 'Refunded');
        const view = await gw.admin('GET', `/transactions/${t.referenceNo}`);
        assert.deepEqual(view.body.refundedAmount, idr('10000.00'));

        const nothingLeft = await refundCall(c, t, `${t.partnerReferenceNo}-4`, '0.01');
        assert.equal(nothingLeft.status, 405, nothingLeft.text);
        assert.deepEqual(nothingLeft.body, snap('4055801', 'Requested Operation Is Not Allowed'));
      });

      it('refuses to refund an unpaid payment with 405 4055801', async () => {
        const t = await create();
        const r = await refundCall(c, t, `${t.partnerReferenceNo}-1`, '1.00');
        assert.equal(r.status, 405, r.text);
        assert.deepEqual(r.body, snap('4055801', 'Requested Operation Is Not Allowed'));
      });

      it('answers 409 4095800 for the same partnerRefundNo under a new X-EXTERNAL-ID, and refunds once', async () => {
        const t = await create();
        await pay(t.referenceNo);
        const first = await refundCall(c, t, `${t.partnerReferenceNo}-dup`, '1000.00');
        assert.equal(first.status, 200, first.text);
        const dup = await refundCall(c, t, `${t.partnerReferenceNo}-dup`, '1000.00');
        assert.equal(dup.status, 409, dup.text);
        assert.deepEqual(dup.body, snap('4095800', 'Conflict'));
        const view = await gw.admin('GET', `/transactions/${t.referenceNo}`);
        assert.deepEqual(view.body.refundedAmount, idr('1000.00'));
      });

      it('answers a replay (same X-EXTERNAL-ID, same body) with the first answer, and refunds once', async () => {
        const t = await create();
        await pay(t.referenceNo);
        const externalId = newExternalId();
        const first = await refundCall(c, t, `${t.partnerReferenceNo}-replay`, '2500.00', { externalId });
        assert.equal(first.status, 200, first.text);
        const again = await refundCall(c, t, `${t.partnerReferenceNo}-replay`, '2500.00', { externalId });
        assert.equal(again.text, first.text);
        const view = await gw.admin('GET', `/transactions/${t.referenceNo}`);
        assert.deepEqual(view.body.refundedAmount, idr('2500.00'));
      });

      it('answers 404 4045801 for an unknown payment and for another merchant’s', async () => {
        const t = await create();
        await pay(t.referenceNo);
        const unknown = await refundCall(
          c,
          { referenceNo: '000000000000000000', partnerReferenceNo: `NOBODY-${ref()}` },
          'RF-unknown',
          '1.00',
        );
        assert.equal(unknown.status, 404, unknown.text);
        assert.deepEqual(unknown.body, snap('4045801', 'Transaction Not Found'));
        const foreign = await refundCall(other, t, 'RF-foreign', '1.00');
        assert.equal(foreign.status, 404, foreign.text);
        assert.deepEqual(foreign.body, snap('4045801', 'Transaction Not Found'));
        const view = await gw.admin('GET', `/transactions/${t.referenceNo}`);
        assert.deepEqual(view.body.refundedAmount, idr('0.00'));
      });

      describe('field rules', () => {
        let paid: Created;
        before(async () => {
          paid = await create();
          await pay(paid.referenceNo);
        });
        const base = () => ({
          originalPartnerReferenceNo: paid.partnerReferenceNo,
          partnerRefundNo: `RF-${ref()}`,
          refundAmount: idr('1.00'),
        });
        const cases: Array<[string, () => Body, ReturnType<typeof snap> | { responseCode: string; message: RegExp }]> =
          [
            [
              'partnerRefundNo missing',
              () => ({ originalPartnerReferenceNo: paid.partnerReferenceNo, refundAmount: idr('1.00') }),
              snap('4005802', 'Invalid Mandatory Field {partnerRefundNo}'),
            ],
            [
              'partnerRefundNo empty',
              () => ({ ...base(), partnerRefundNo: '' }),
              snap('4005802', 'Invalid Mandatory Field {partnerRefundNo}'),
            ],
            [
              'refundAmount missing',
              () => ({ originalPartnerReferenceNo: paid.partnerReferenceNo, partnerRefundNo: `RF-${ref()}` }),
              snap('4005802', 'Invalid Mandatory Field {refundAmount}'),
            ],
            [
              'refundAmount.value with one decimal',
              () => ({ ...base(), refundAmount: idr('1.5') }),
              { responseCode: '4005801', message: /^Invalid Field Format \{refundAmount/ },
            ],
            [
              'refundAmount.currency USD',
              () => ({ ...base(), refundAmount: { value: '1.00', currency: 'USD' } }),
              { responseCode: '4005801', message: /^Invalid Field Format \{refundAmount/ },
            ],
            [
              'refundAmount.value zero',
              () => ({ ...base(), refundAmount: idr('0.00') }),
              { responseCode: '4005801', message: /^Invalid Field Format \{refundAmount/ },
            ],
          ];
        for (const [name, body, expected] of cases) {
          it(`answers 400 ${expected.responseCode} for ${name}, and refunds nothing`, async () => {
            const r = await snapCall(gw.url, c, `${DEBIT}/refund`, body());
            assert.equal(r.status, 400, r.text);
            if ('message' in expected) {
              assert.equal(r.body.responseCode, expected.responseCode, r.text);
              assert.match(r.body.responseMessage, expected.message);
            } else {
              assert.deepEqual(r.body, expected);
            }
            const view = await gw.admin('GET', `/transactions/${paid.referenceNo}`);
            assert.deepEqual(view.body.refundedAmount, idr('0.00'));
          });
        }
      });
    });

    describe('callbacks to the merchant', () => {
      it('tells an approval at <callbackBaseUrl>/v1.0/debit/notify, signed, with the 150.00 fee, and takes 2005600 as delivered', async () => {
        const t = await create('10000.00');
        await pay(t.referenceNo, { payerName: 'BUDI' });
        const r = await toldOf(t.referenceNo, (b) => b.latestTransactionStatus === '00');
        assert.equal(r.url, '/shop/v1.0/debit/notify');
        assertSigned(r, m);
        const b = parsed(r) as Told;
        assert.equal(b.originalPartnerReferenceNo, t.partnerReferenceNo);
        assert.equal(b.originalReferenceNo, t.referenceNo);
        assert.equal(b.latestTransactionStatus, '00');
        assert.equal(b.transactionStatusDesc, 'Success');
        assert.deepEqual(b.amount, idr('10000.00'));
        assert.deepEqual(b.additionalInfo.feeAmount, idr('150.00'));
        assert.equal(b.additionalInfo.payOption, 'SANDBOXPAY');
        assert.equal(b.additionalInfo.refund, undefined);
        await assertDelivered(t.referenceNo, r);
      });

      it('tells a decline at the payment’s own PAY_NOTIFY url instead, and takes 2002600 as delivered too', async () => {
        const t = await create('10000.00', {
          urlParams: [
            { url: 'https://shop.example/return', type: 'PAY_RETURN', isDeeplink: 'N' },
            { url: `${receiver.baseUrl}${OWN_NOTIFY_PATH}`, type: 'PAY_NOTIFY', isDeeplink: 'N' },
          ],
        });
        await pay(t.referenceNo, { status: '06' }, '06');
        const r = await toldOf(t.referenceNo, (b) => b.latestTransactionStatus === '06');
        assert.equal(r.url, OWN_NOTIFY_PATH);
        assertSigned(r, m);
        const b = parsed(r) as Told;
        assert.equal(b.originalPartnerReferenceNo, t.partnerReferenceNo);
        assert.equal(b.originalReferenceNo, t.referenceNo);
        assert.equal(b.latestTransactionStatus, '06');
        assert.equal(b.transactionStatusDesc, 'Declined');
        assert.deepEqual(b.amount, idr('10000.00'));
        assert.deepEqual(b.additionalInfo.feeAmount, idr('0.00'), 'no fee on a payment nobody made');
        assert.equal(b.additionalInfo.payOption, 'SANDBOXPAY');
        await assertDelivered(t.referenceNo, r);
        const atBase = receiver.received.filter((x) => x.body.includes(t.referenceNo) && x.url !== OWN_NOTIFY_PATH);
        assert.deepEqual(
          atBase.map((x) => x.url),
          [],
          'nothing of it at the merchant’s base URL',
        );
      });

      it('tells an approval at PAY_NOTIFY with the 150.00 fee', async () => {
        const t = await create('10000.00', {
          urlParams: [{ url: `${receiver.baseUrl}${OWN_NOTIFY_PATH}`, type: 'PAY_NOTIFY', isDeeplink: 'N' }],
        });
        await pay(t.referenceNo);
        const r = await toldOf(t.referenceNo, (b) => b.latestTransactionStatus === '00');
        assert.equal(r.url, OWN_NOTIFY_PATH);
        assertSigned(r, m);
        assert.deepEqual((parsed(r) as Told).additionalInfo.feeAmount, idr('150.00'));
        await assertDelivered(t.referenceNo, r);
      });

      it('tells a cancellation (05)', async () => {
        const t = await create('10000.00');
        const cancelled = await cancelCall(c, { originalPartnerReferenceNo: t.partnerReferenceNo });
        assert.equal(cancelled.status, 200, cancelled.text);
        const r = await toldOf(t.referenceNo, (b) => b.latestTransactionStatus === '05');
        assert.equal(r.url, '/shop/v1.0/debit/notify');
        assertSigned(r, m);
        const b = parsed(r) as Told;
        assert.equal(b.originalPartnerReferenceNo, t.partnerReferenceNo);
        assert.equal(b.transactionStatusDesc, 'Canceled');
        assert.deepEqual(b.amount, idr('10000.00'));
        assert.deepEqual(b.additionalInfo.feeAmount, idr('0.00'));
        assert.equal(b.additionalInfo.payOption, 'SANDBOXPAY');
        await assertDelivered(t.referenceNo, r);
      });

      it('tells a partial refund as 00 with additionalInfo.refund, and the last part as 04', async () => {
        const t = await create('10000.00');
        await pay(t.referenceNo);
        await toldOf(
          t.referenceNo,
          (b) => b.latestTransactionStatus === '00' && b.additionalInfo?.refund === undefined,
        );

        const part = await refundCall(c, t, `${t.partnerReferenceNo}-p`, '4000.00');
        assert.equal(part.status, 200, part.text);
        const r1 = await toldOf(
          t.referenceNo,
          (b) => b.additionalInfo?.refund?.partnerRefundNo === `${t.partnerReferenceNo}-p`,
        );
        assert.equal(r1.url, '/shop/v1.0/debit/notify');
        assertSigned(r1, m);
        const b1 = parsed(r1) as Told;
        assert.equal(b1.latestTransactionStatus, '00');
        assert.deepEqual(b1.amount, idr('10000.00'), 'still the payment’s amount');
        assert.equal(b1.additionalInfo.payOption, 'SANDBOXPAY');
        assert.equal(b1.additionalInfo.refund.refundNo, part.body.refundNo);
        assert.deepEqual(b1.additionalInfo.refund.refundAmount, idr('4000.00'));
        await assertDelivered(t.referenceNo, r1);

        const whole = await refundCall(c, t, `${t.partnerReferenceNo}-w`, '6000.00');
        assert.equal(whole.status, 200, whole.text);
        const r2 = await toldOf(t.referenceNo, (b) => b.latestTransactionStatus === '04');
        assertSigned(r2, m);
        const b2 = parsed(r2) as Told;
        assert.equal(b2.transactionStatusDesc, 'Refunded');
        assert.deepEqual(b2.amount, idr('10000.00'));
        assert.equal(b2.additionalInfo.refund.refundNo, whole.body.refundNo);
        assert.deepEqual(b2.additionalInfo.refund.refundAmount, idr('6000.00'));
        await assertDelivered(t.referenceNo, r2);
      });
    });

    describe('concurrent refunds', () => {
      it('8 parallel refunds of 3000.00 of a paid 10000.00 never refund more than was paid, and never answer 5xx', async () => {
        const t = await create('10000.00');
        await pay(t.referenceNo);
        const answers = await Promise.all(
          Array.from({ length: 8 }, (_, i) => refundCall(c, t, `${t.partnerReferenceNo}-R${i}`, '3000.00')),
        );
        const codes = answers.map((a) => `${a.status} ${a.body?.responseCode}`);
        assert.ok(
          answers.every((a) => a.status < 500),
          codes.join(', '),
        );
        const accepted = answers.filter((a) => a.status === 200);
        const refunded = accepted.reduce((sum, a) => sum + cents(a.body.refundAmount.value), 0);
        assert.ok(refunded <= cents('10000.00'), `refunded ${refunded} cents: ${codes.join(', ')}`);
        assert.equal(accepted.length, 3, codes.join(', '));
        assert.ok(
          answers.every((a) => a.body?.responseCode === '2005800' || a.body?.responseCode === '4045813'),
          codes.join(', '),
        );
        const view = await gw.admin('GET', `/transactions/${t.referenceNo}`);
        assert.deepEqual(view.body.refundedAmount, idr('9000.00'));
        assert.equal(view.body.status, '00');
        assert.equal((await statusOf(t.referenceNo)).latestTransactionStatus, '00');

        const last = await refundCall(c, t, `${t.partnerReferenceNo}-R-last`, '1000.00');
        assert.equal(last.status, 200, last.text);
        assert.equal((await statusOf(t.referenceNo)).latestTransactionStatus, '04');
      });
    });

    describe('expiry without an answer (injected clock)', () => {
      it('turns an unpaid payment into 06 Expired at its validUpTo, tells it, and refuses payment after', async () => {
        const opened = await under.open();
        // validUpTo has whole seconds: start the clock on one.
        const clock = createManualClock(Math.floor(Date.now() / 1000) * 1000);
        const egw = await startGateway({ store: opened.store, clock, env: { SNAPGATE_RATE_LIMIT: 'off' } });
        try {
          const ec = await authenticate(egw.url, await egw.createMerchant({ name: 'Expiring Shop' }));
          const validUpTo = formatJakartaTimestamp(clock.now() + 10 * 60_000);
          const created = await snapCall(
            egw.url,
            ec,
            `${DEBIT}/payment-host-to-host`,
            debitOrder(ref(), '10000.00', { validUpTo }),
            { timestamp: formatJakartaTimestamp(clock.now()) },
          );
          assert.equal(created.status, 200, created.text);
          const referenceNo: string = created.body.referenceNo;

          clock.advance(10 * 60_000 - 1);
          assert.equal(await egw.gateway.expiry.runOnce(), 0);
          assert.equal((await egw.store.findTransaction(referenceNo))?.status, '01');
          clock.advance(1);
          assert.equal(await egw.gateway.expiry.runOnce(), 1);

          const view = await egw.admin('GET', `/transactions/${referenceNo}`);
          assert.equal(view.body.kind, 'ewallet');
          assert.equal(view.body.status, '06');
          assert.equal(view.body.statusDesc, 'Expired');
          assert.deepEqual(
            (await egw.store.notificationsOf(referenceNo)).map((n) => n.latestStatus),
            ['06'],
          );
          const late = await egw.admin('POST', `/sandbox/ewallet/${referenceNo}/pay`, {});
          assert.equal(late.status, 409, JSON.stringify(late.body));
          assert.equal((await egw.store.findTransaction(referenceNo))?.status, '06');
        } finally {
          await egw.close();
          await opened.cleanup();
        }
      });
    });
  });
}

// Account binding with the sandbox wallet (docs/ewallets.md#account-binding): the merchant asks to
// bind (07), the customer approves at the sandbox wallet's consent page over HTTP, the merchant
// trades the one-time authCode for the customer token (74), pays from the bound account without a
// redirect (54 with Authorization-Customer), refreshes the token, and unbinds (09). Every refusal
// with its bad input. On both stores.
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { formatJakartaTimestamp } from '@snapgate/snap';
import { createManualClock } from '../../src/clock.ts';
import { startGateway, type TestGateway, type TestMerchant } from '../helpers/gateway.ts';
import { ACK, type Receiver, startReceiver, waitFor } from '../helpers/receiver.ts';
import {
  authenticate,
  newExternalId,
  postCustomerToken,
  postToken,
  type SnapCaller,
  snapCall,
} from '../helpers/snap.ts';
import type { StoreUnderTest } from '../helpers/store-under-test.ts';
import { answerConsent, approvedAuthCode, backOf } from '../helpers/wallet.ts';

const API = '/api/snap/v1.0';
type Body = Record<string, any>;
const idr = (value: string) => ({ value, currency: 'IDR' });
let refs = 0;
const ref = (label = 'BIND') => `${label}-${Date.now()}-${++refs}`;
const SHOP_BACK = 'https://shop.example/account/wallet-linked';
const bindOrder = (partnerReferenceNo = ref(), extra: Body = {}): Body => ({
  partnerReferenceNo,
  phoneNo: '6281234567890',
  redirectUrl: SHOP_BACK,
  additionalInfo: { payOption: 'SANDBOXPAY' },
  ...extra,
});
const payOrder = (payOption = 'SANDBOXPAY', value = '15000.00'): Body => ({
  partnerReferenceNo: ref('BOUND'),
  amount: idr(value),
  payOptionDetails: [{ payMethod: 'EMONEY', payOption, transAmount: idr(value) }],
});

/** A signed B2B2C token request (service 74). */
const customerTokenCall = (gw: TestGateway, m: TestMerchant, body: Body | string, timestamp?: string) =>
  postCustomerToken(gw.url, {
    clientKey: m.clientKey,
    clientSecret: m.clientSecret,
    body: typeof body === 'string' ? body : JSON.stringify(body),
    timestamp,
  });

export function bindingSuite(under: StoreUnderTest): void {
  describe(`account binding with the sandbox wallet (${under.name})`, () => {
    let gw: TestGateway;
    let cleanup: () => Promise<void>;
    let receiver: Receiver;
    let m: TestMerchant;
    let c: SnapCaller;
    let other: TestMerchant;
    let o: SnapCaller;
    before(async () => {
      receiver = await startReceiver((_req, res) => {
        res.writeHead(200, { 'content-type': 'application/json' }).end(ACK);
      });
      const opened = await under.open();
      cleanup = opened.cleanup;
      gw = await startGateway({
        store: opened.store,
        dispatch: true,
        env: { SNAPGATE_RATE_LIMIT: 'off', SNAPGATE_RETRY_SCHEDULE: '0s,50ms' },
      });
      m = await gw.createMerchant({ name: 'Toko Langganan', callbackBaseUrl: receiver.baseUrl });
      c = await authenticate(gw.url, m);
      other = await gw.createMerchant({ name: 'Another Shop' });
      o = await authenticate(gw.url, other);
    });
    after(async () => {
      await gw.close();
      await cleanup();
      await receiver.close();
    });

    const bind = (body: Body, caller = c, externalId?: string) =>
      snapCall(gw.url, caller, `${API}/registration-account-binding`, body, externalId ? { externalId } : {});
    const unbind = (token: string | undefined, body: Body = {}) =>
      snapCall(gw.url, c, `${API}/registration-account-unbinding`, body, {
        headers: { 'authorization-customer': token === undefined ? undefined : `Bearer ${token}` },
      });
    const payBound = (token: string | undefined, body: Body = payOrder(), caller = c) =>
      snapCall(gw.url, caller, `${API}/debit/payment-host-to-host`, body, {
        headers: { 'authorization-customer': token === undefined ? undefined : `Bearer ${token}` },
      });

    /** A binding approved at the consent page: its answer, and the authCode the customer came back with. */
    const approved = async (partnerReferenceNo = ref()) => {
      const r = await bind(bindOrder(partnerReferenceNo));
      assert.equal(r.status, 200, r.text);
      return { bound: r.body, authCode: await approvedAuthCode(r.body.redirectUrl) };
    };
    /** A bound account's tokens. */
    const bound = async () => {
      const a = await approved();
      const t = await customerTokenCall(gw, m, { grantType: 'authorization_code', authCode: a.authCode });
      assert.equal(t.status, 200, t.text);
      return { ...a, tokens: t.body as Body };
    };

    it('binds: the wallet’s page asks the customer, who comes back with a one-time authCode', async () => {
      const partnerReferenceNo = ref();
      const externalId = newExternalId();
      const r = await bind(bindOrder(partnerReferenceNo), c, externalId);
      assert.equal(r.status, 200, r.text);
      assert.equal(r.body.responseCode, '2000700');
      assert.equal(r.body.partnerReferenceNo, partnerReferenceNo);
      assert.match(r.body.referenceNo, /^\d{18,}$/);
      assert.match(r.body.redirectUrl, new RegExp(`^${gw.url}/bind/[\\w-]{16,}$`));
      assert.deepEqual(r.body.additionalInfo, { payOption: 'SANDBOXPAY' });
      // The same X-EXTERNAL-ID again: the same answer; another for the same reference: a duplicate.
      assert.deepEqual((await bind(bindOrder(partnerReferenceNo), c, externalId)).body, r.body);
      assert.deepEqual((await bind(bindOrder(partnerReferenceNo))).body, {
        responseCode: '4090701',
        responseMessage: 'Duplicate partnerReferenceNo',
      });

      const page = await fetch(r.body.redirectUrl);
      assert.equal(page.status, 200);
      // A page of the payer's like the checkout: never framed, never stored, no referrer.
      assert.equal(page.headers.get('x-frame-options'), 'DENY');
      assert.match(page.headers.get('content-security-policy') ?? '', /frame-ancestors 'none'/);
      assert.equal(page.headers.get('cache-control'), 'no-store');
      assert.equal(page.headers.get('referrer-policy'), 'no-referrer');
      const html = await page.text();
      assert.match(html, /Toko Langganan ingin menghubungkan akun SANDBOXPAY Anda/);
      // Only from the page itself.
      assert.equal((await answerConsent(r.body.redirectUrl, 'approve', 'cross-site')).status, 403);
      assert.equal((await answerConsent(r.body.redirectUrl, 'maybe')).status, 400);
      const answered = await answerConsent(r.body.redirectUrl, 'approve');
      assert.equal(answered.status, 200);
      assert.equal(answered.headers.get('cache-control'), 'no-store');
      const back = await backOf(answered);
      assert.equal(`${back.origin}${back.pathname}`, SHOP_BACK);
      assert.equal(back.searchParams.get('state'), partnerReferenceNo);
      assert.equal(back.searchParams.get('resultCode'), '00');
      assert.match(back.searchParams.get('authCode') ?? '', /^[\w-]{43}$/);
      // Answered once: the page is gone.
      assert.equal((await fetch(r.body.redirectUrl)).status, 404);
      assert.equal((await answerConsent(r.body.redirectUrl, 'decline')).status, 404);
    });

    it('refuses a binding with a bad field, or for a wallet that binds nothing', async () => {
      const { additionalInfo: _a, ...noWallet } = bindOrder();
      const cases: Array<[Body, Body]> = [
        [
          { ...bindOrder(), partnerReferenceNo: undefined },
          { responseCode: '4000702', responseMessage: 'Invalid Mandatory Field {partnerReferenceNo}' },
        ],
        [
          { ...bindOrder(), partnerReferenceNo: 'x'.repeat(65) },
          { responseCode: '4000701', responseMessage: 'Invalid Field Format {partnerReferenceNo}' },
        ],
        [
          { ...bindOrder(), redirectUrl: undefined },
          { responseCode: '4000702', responseMessage: 'Invalid Mandatory Field {redirectUrl}' },
        ],
        [
          { ...bindOrder(), redirectUrl: 'ftp://shop.example/x' },
          { responseCode: '4000701', responseMessage: 'Invalid Field Format {redirectUrl}' },
        ],
        [
          { ...bindOrder(), redirectUrl: 'https://user:pw@shop.example/x' },
          { responseCode: '4000701', responseMessage: 'Invalid Field Format {redirectUrl}' },
        ],
        [
          { ...bindOrder(), phoneNo: '0812-345' },
          { responseCode: '4000701', responseMessage: 'Invalid Field Format {phoneNo}' },
        ],
        [noWallet, { responseCode: '4000702', responseMessage: 'Invalid Mandatory Field {additionalInfo.payOption}' }],
        [
          { ...bindOrder(), additionalInfo: { payOption: 'dana' } },
          { responseCode: '4000701', responseMessage: 'Invalid Field Format {additionalInfo.payOption}' },
        ],
        [
          { ...bindOrder(), additionalInfo: { payOption: 'GOPAY' } },
          { responseCode: '4030701', responseMessage: 'Feature Not Allowed [Pay Option Not Available]' },
        ],
      ];
      for (const [body, answer] of cases) assert.deepEqual((await bind(body)).body, answer, JSON.stringify(body));
      // A connected wallet that does not answer binds nothing, and the reference may be used again
      // (test/providers/wallet-binding-suite.ts binds at one that does).
      const dana = await gw.admin('POST', '/providers', {
        name: 'DANA',
        kind: 'ewallet',
        payOption: 'DANA',
        outbound: { baseUrl: 'http://127.0.0.1:9', clientKey: 'k', clientSecret: 's', partnerId: 'P' },
      });
      assert.equal(dana.status, 201, JSON.stringify(dana.body));
      const partnerReferenceNo = ref();
      assert.deepEqual((await bind({ ...bindOrder(partnerReferenceNo), additionalInfo: { payOption: 'DANA' } })).body, {
        responseCode: '5000702',
        responseMessage: 'External Server Error',
      });
      assert.equal((await bind(bindOrder(partnerReferenceNo))).status, 200);
    });

    it('sends a customer who declines back without an authCode', async () => {
      const r = await bind(bindOrder());
      const back = await backOf(await answerConsent(r.body.redirectUrl, 'decline'));
      assert.equal(back.searchParams.get('resultCode'), '06');
      assert.equal(back.searchParams.get('authCode'), null);
      assert.equal((await fetch(r.body.redirectUrl)).status, 404);
    });

    it('trades an authCode for the customer token once, only for its merchant', async () => {
      const a = await approved();
      const byOther = await customerTokenCall(gw, other, { grantType: 'authorization_code', authCode: a.authCode });
      assert.deepEqual(byOther.body, { responseCode: '4017400', responseMessage: 'Unauthorized. [Invalid Auth Code]' });
      // Another merchant's try neither takes nor spends it: its own merchant still can, once.
      const own = await customerTokenCall(gw, m, { grantType: 'authorization_code', authCode: a.authCode });
      assert.equal(own.status, 200, own.text);
      const late = await customerTokenCall(gw, m, { grantType: 'authorization_code', authCode: a.authCode });
      assert.deepEqual(late.body, { responseCode: '4017400', responseMessage: 'Unauthorized. [Invalid Auth Code]' });
      // Nor another merchant's refresh: the binding's tokens stay its merchant's.
      const stolen = await customerTokenCall(gw, other, {
        grantType: 'refresh_token',
        refreshToken: own.body.refreshToken,
      });
      assert.deepEqual(stolen.body, {
        responseCode: '4017400',
        responseMessage: 'Unauthorized. [Invalid Refresh Token]',
      });
      assert.equal((await payBound(own.body.accessToken)).status, 200, 'its access token still pays');

      const b = await approved();
      // Two at once: exactly one gets the token.
      const both = await Promise.all(
        [0, 1].map(() => customerTokenCall(gw, m, { grantType: 'AUTHORIZATION_CODE', authCode: b.authCode })),
      );
      assert.deepEqual(both.map((r) => r.status).sort(), [200, 401]);
      const t = both.find((r) => r.status === 200)?.body as Body;
      assert.equal(t.responseCode, '2007400');
      assert.equal(t.tokenType, 'Bearer');
      assert.match(t.accessToken, /^[\w-]{43}$/);
      assert.match(t.refreshToken, /^[\w-]{43}$/);
      assert.match(t.accessTokenExpiryTime, /\+07:00$/);
      assert.deepEqual(t.additionalInfo, {
        referenceNo: b.bound.referenceNo,
        partnerReferenceNo: b.bound.partnerReferenceNo,
        payOption: 'SANDBOXPAY',
      });
    });

    it('refuses a customer token request with a bad field or signature', async () => {
      const cases: Array<[Body | string, Body]> = [
        [{}, { responseCode: '4007402', responseMessage: 'Invalid Mandatory Field {grantType}' }],
        [{ grantType: 'password' }, { responseCode: '4007401', responseMessage: 'Invalid Field Format {grantType}' }],
        [
          { grantType: 'authorization_code' },
          { responseCode: '4007402', responseMessage: 'Invalid Mandatory Field {authCode}' },
        ],
        [
          { grantType: 'refresh_token' },
          { responseCode: '4007402', responseMessage: 'Invalid Mandatory Field {refreshToken}' },
        ],
        [
          { grantType: 'authorization_code', authCode: 7 },
          { responseCode: '4007401', responseMessage: 'Invalid Field Format {authCode}' },
        ],
        [
          { grantType: 'authorization_code', authCode: 'not-a-code' },
          { responseCode: '4017400', responseMessage: 'Unauthorized. [Invalid Auth Code]' },
        ],
        [
          { grantType: 'refresh_token', refreshToken: 'not-a-token' },
          { responseCode: '4017400', responseMessage: 'Unauthorized. [Invalid Refresh Token]' },
        ],
        ['[1]', { responseCode: '4007400', responseMessage: 'Bad Request' }],
      ];
      for (const [body, answer] of cases) {
        assert.deepEqual((await customerTokenCall(gw, m, body)).body, answer, JSON.stringify(body));
      }
      const forged = await postCustomerToken(gw.url, {
        clientKey: m.clientKey,
        clientSecret: 'wrong',
        body: '{"grantType":"refresh_token","refreshToken":"x"}',
      });
      assert.deepEqual(forged.body, {
        responseCode: '4017400',
        responseMessage: 'Unauthorized. [Invalid Signature]',
      });
      const stale = formatJakartaTimestamp(Date.now() - 60 * 60_000);
      assert.deepEqual(
        (await customerTokenCall(gw, m, { grantType: 'refresh_token', refreshToken: 'x' }, stale)).body,
        {
          responseCode: '4017400',
          responseMessage: 'Unauthorized. [Timestamp Out Of Range]',
        },
      );
    });

    it('pays from the bound account without a redirect, and tells the merchant', async () => {
      const { tokens, bound: b } = await bound();
      const r = await payBound(tokens.accessToken);
      assert.equal(r.status, 200, r.text);
      assert.equal(r.body.webRedirectUrl, undefined, 'no page: the wallet debits the bound account');
      assert.equal(r.body.additionalInfo.bindingReferenceNo, b.referenceNo);
      await waitFor(
        'the bound payment paid',
        async () => (await gw.store.findTransaction(r.body.referenceNo))?.status === '00',
      );
      const told = await waitFor('its callback', () =>
        receiver.received.find((x) => x.body.includes(r.body.referenceNo) && x.body.includes('"00"')),
      );
      assert.equal(told.url, '/v1.0/debit/notify');
      const t = await gw.store.findTransaction(r.body.referenceNo);
      assert.equal(t?.kind === 'ewallet' ? t.details.bindingId : undefined, b.referenceNo);
    });

    it('refuses a payment with a customer token that is wrong, another merchant’s, or of another wallet', async () => {
      const { tokens } = await bound();
      const invalid = { responseCode: '4015402', responseMessage: 'Invalid Customer Token' };
      assert.deepEqual((await payBound('not-a-token')).body, invalid);
      assert.deepEqual((await payBound(tokens.accessToken, payOrder(), o)).body, invalid);
      assert.deepEqual((await payBound(tokens.refreshToken)).body, invalid, 'a refresh token pays nothing');
      // A customer header that is there but not a bearer token is refused, never ignored.
      for (const header of ['Basic dXNlcjpwdw==', 'Bearer', '']) {
        const r = await snapCall(gw.url, c, `${API}/debit/payment-host-to-host`, payOrder(), {
          headers: { 'authorization-customer': header },
        });
        assert.deepEqual(r.body, invalid, JSON.stringify(header));
      }
      assert.deepEqual((await payBound(tokens.accessToken, payOrder('GOPAY'))).body, {
        responseCode: '4005401',
        responseMessage: 'Invalid Field Format {payOptionDetails[0].payOption}',
      });
    });

    it('refreshes the token once, the old ones dead; unbinding ends every token of it', async () => {
      const { tokens, bound: b } = await bound();
      const refreshed = await customerTokenCall(gw, m, {
        grantType: 'refresh_token',
        refreshToken: tokens.refreshToken,
      });
      assert.equal(refreshed.status, 200, refreshed.text);
      const again = await customerTokenCall(gw, m, { grantType: 'refresh_token', refreshToken: tokens.refreshToken });
      assert.deepEqual(again.body, {
        responseCode: '4017400',
        responseMessage: 'Unauthorized. [Invalid Refresh Token]',
      });
      const invalid = { responseCode: '4015402', responseMessage: 'Invalid Customer Token' };
      assert.deepEqual((await payBound(tokens.accessToken)).body, invalid, 'the old access token');
      const fresh = refreshed.body as Body;
      assert.equal((await payBound(fresh.accessToken)).status, 200);

      // Unbinding: by the customer token; a partnerReferenceNo, when given, must be its binding's.
      assert.deepEqual((await unbind(undefined)).body, {
        responseCode: '4010902',
        responseMessage: 'Invalid Customer Token',
      });
      assert.deepEqual((await unbind(fresh.accessToken, { partnerReferenceNo: 'ANOTHER' })).body, {
        responseCode: '4000901',
        responseMessage: 'Invalid Field Format {partnerReferenceNo}',
      });
      // Another merchant cannot unbind it, even with its token.
      const byOther = await snapCall(
        gw.url,
        o,
        `${API}/registration-account-unbinding`,
        {},
        {
          headers: { 'authorization-customer': `Bearer ${fresh.accessToken}` },
        },
      );
      assert.deepEqual(byOther.body, { responseCode: '4010902', responseMessage: 'Invalid Customer Token' });
      const externalId = newExternalId();
      const unbindOnce = () =>
        snapCall(
          gw.url,
          c,
          `${API}/registration-account-unbinding`,
          { partnerReferenceNo: b.partnerReferenceNo },
          {
            externalId,
            headers: { 'authorization-customer': `Bearer ${fresh.accessToken}` },
          },
        );
      const ended = await unbindOnce();
      assert.equal(ended.status, 200, ended.text);
      // The same request again (a retry after a lost answer): the same answer.
      assert.deepEqual((await unbindOnce()).body, ended.body);
      assert.deepEqual(ended.body, {
        responseCode: '2000900',
        responseMessage: 'Successful',
        referenceNo: b.referenceNo,
        partnerReferenceNo: b.partnerReferenceNo,
        unlinkResult: 'success',
        additionalInfo: { payOption: 'SANDBOXPAY' },
      });
      assert.deepEqual((await unbind(fresh.accessToken)).body, {
        responseCode: '4010902',
        responseMessage: 'Invalid Customer Token',
      });
      assert.deepEqual((await payBound(fresh.accessToken)).body, invalid);
      const afterUnbind = await customerTokenCall(gw, m, {
        grantType: 'refresh_token',
        refreshToken: fresh.refreshToken,
      });
      assert.deepEqual(afterUnbind.body, {
        responseCode: '4017400',
        responseMessage: 'Unauthorized. [Invalid Refresh Token]',
      });
    });
  });

  describe(`account binding in production (${under.name})`, () => {
    it('binds no sandbox wallet account, and serves no consent page', async () => {
      const opened = await under.open();
      const prod = await startGateway({ store: opened.store, env: { SNAPGATE_MODE: 'production' } });
      try {
        const pm = await prod.createMerchant({ name: 'Toko Produksi', callbackBaseUrl: 'https://shop.example' });
        const r = await snapCall(
          prod.url,
          await authenticate(prod.url, pm),
          `${API}/registration-account-binding`,
          bindOrder(),
        );
        assert.deepEqual(r.body, {
          responseCode: '4030701',
          responseMessage: 'Feature Not Allowed [Pay Option Not Available]',
        });
        assert.equal((await fetch(`${prod.url}/bind/anything`)).status, 404);
      } finally {
        await prod.close();
        await opened.cleanup();
      }
    });
  });

  describe(`account binding: what expires (${under.name})`, () => {
    let gw: TestGateway;
    let cleanup: () => Promise<void>;
    let m: TestMerchant;
    const clock = createManualClock(Math.floor(Date.now() / 1000) * 1000);
    before(async () => {
      const opened = await under.open();
      cleanup = opened.cleanup;
      gw = await startGateway({ store: opened.store, clock, env: { SNAPGATE_RATE_LIMIT: 'off' } });
      m = await gw.createMerchant({ name: 'Toko Waktu' });
    });
    after(async () => {
      await gw.close();
      await cleanup();
    });
    const now = () => formatJakartaTimestamp(clock.now());
    const caller = async (): Promise<SnapCaller> => {
      const t = await postToken(gw.url, { clientKey: m.clientKey, clientSecret: m.clientSecret, timestamp: now() });
      assert.equal(t.status, 200, t.text);
      return { ...m, accessToken: t.body.accessToken };
    };
    const bindNow = async () => {
      const r = await snapCall(gw.url, await caller(), `${API}/registration-account-binding`, bindOrder(), {
        timestamp: now(),
      });
      assert.equal(r.status, 200, r.text);
      return r.body.redirectUrl as string;
    };

    /** A binding approved and traded now: the customer token's answer. */
    const boundNow = async () => {
      const authCode = await approvedAuthCode(await bindNow());
      const t = await customerTokenCall(gw, m, { grantType: 'authorization_code', authCode }, now());
      assert.equal(t.status, 200, t.text);
      return t;
    };

    it('refuses an authCode past its 10 minutes, and a consent page past its 30', async () => {
      const authCode = await approvedAuthCode(await bindNow());
      clock.advance(10 * 60_000);
      const late = await customerTokenCall(gw, m, { grantType: 'authorization_code', authCode }, now());
      assert.deepEqual(late.body, { responseCode: '4017400', responseMessage: 'Unauthorized. [Invalid Auth Code]' });

      const consent = await bindNow();
      clock.advance(30 * 60_000);
      assert.equal((await fetch(consent)).status, 404);
      assert.equal((await answerConsent(consent, 'approve')).status, 404);
    });

    it('refuses a refresh token past its 30 days', async () => {
      const t = await boundNow();
      clock.advance(30 * 24 * 60 * 60_000);
      const late = await customerTokenCall(
        gw,
        m,
        { grantType: 'refresh_token', refreshToken: t.body.refreshToken },
        now(),
      );
      assert.deepEqual(late.body, {
        responseCode: '4017400',
        responseMessage: 'Unauthorized. [Invalid Refresh Token]',
      });
    });

    it('refuses a customer token past its hour', async () => {
      const t = await boundNow();
      clock.advance(60 * 60_000);
      const r = await snapCall(gw.url, await caller(), `${API}/debit/payment-host-to-host`, payOrder(), {
        timestamp: now(),
        headers: { 'authorization-customer': `Bearer ${t.body.accessToken}` },
      });
      assert.deepEqual(r.body, { responseCode: '4015402', responseMessage: 'Invalid Customer Token' });
      // Its refresh token still takes a new one.
      const refreshed = await customerTokenCall(
        gw,
        m,
        { grantType: 'refresh_token', refreshToken: t.body.refreshToken },
        now(),
      );
      assert.equal(refreshed.status, 200, refreshed.text);
    });
  });
}

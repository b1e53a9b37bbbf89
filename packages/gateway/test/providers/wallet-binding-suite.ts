// Account binding at a connected wallet (docs/ewallets.md#binding-at-a-connected-wallet): snapgate
// forwards the merchant's binding (07) to the wallet, takes the customer back from the wallet's
// page, trades the wallet's authCode for the customer's token there (B2B2C) and keeps it sealed,
// sends it with the binding's payments (54) and its unbinding (09), and renews it when it lapses.
// The wallet is a real SNAP server over HTTP that checks every signature (test/helpers/wallet.ts).
// On both stores.
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { createManualClock } from '../../src/clock.ts';
import { rawSql } from '../books/ledger-suite.ts';
import type { TestGateway, TestMerchant } from '../helpers/gateway.ts';
import { type Receiver, waitFor } from '../helpers/receiver.ts';
import { newExternalId, postCustomerToken, type SnapCaller, snapCall } from '../helpers/snap.ts';
import type { StoreUnderTest } from '../helpers/store-under-test.ts';
import { backOf, startWalletWorld, type TestWallet, WALLET_CLIENT } from '../helpers/wallet.ts';

const API = '/api/snap/v1.0';
type Body = Record<string, any>;
const idr = (value: string) => ({ value, currency: 'IDR' });
let refs = 0;
const ref = (label = 'LINK') => `${label}-${Date.now()}-${++refs}`;
const SHOP_BACK = 'https://shop.example/account/dana-linked';
const bindOrder = (partnerReferenceNo = ref(), payOption = 'DANA'): Body => ({
  partnerReferenceNo,
  phoneNo: '6281298765432',
  redirectUrl: SHOP_BACK,
  additionalInfo: { payOption },
});
const payOrder = (value = '25000.00'): Body => ({
  partnerReferenceNo: ref('ONE-TAP'),
  amount: idr(value),
  payOptionDetails: [{ payMethod: 'EMONEY', payOption: 'DANA', transAmount: idr(value) }],
});
const INVALID_CUSTOMER_TOKEN = { responseCode: '4015402', responseMessage: 'Invalid Customer Token' };

export function walletBindingSuite(under: StoreUnderTest): void {
  describe(`account binding at a connected wallet (${under.name})`, () => {
    let gw: TestGateway;
    let close: () => Promise<void>;
    let wallet: TestWallet;
    let receiver: Receiver;
    let m: TestMerchant;
    let c: SnapCaller;
    let dana: SnapCaller;
    let danaId: string;
    before(async () => {
      ({ gw, wallet, receiver, m, c, dana, danaId, close } = await startWalletWorld(under, 'Toko Sekali Klik'));
    });
    after(() => close());

    const bind = (body: Body, externalId?: string) =>
      snapCall(gw.url, c, `${API}/registration-account-binding`, body, externalId ? { externalId } : {});
    const withCustomer = (token: string) => ({ headers: { 'authorization-customer': `Bearer ${token}` } });
    const payBound = (token: string, body: Body = payOrder()) =>
      snapCall(gw.url, c, `${API}/debit/payment-host-to-host`, body, withCustomer(token));
    const unbind = (token: string) =>
      snapCall(gw.url, c, `${API}/registration-account-unbinding`, {}, withCustomer(token));
    const customerToken = (authCode: string) =>
      postCustomerToken(gw.url, {
        clientKey: m.clientKey,
        clientSecret: m.clientSecret,
        body: JSON.stringify({ grantType: 'authorization_code', authCode }),
      });

    /**
     * The customer answers at the wallet's page, which sends them back to snapgate: the URL they
     * came back to, and snapgate's page that sends them on to the merchant.
     */
    async function answerAtWallet(walletPage: string, answer: 'approve' | 'decline') {
      const atWallet = await fetch(`${walletPage}?answer=${answer}`, { redirect: 'manual' });
      assert.equal(atWallet.status, 302);
      const returnUrl = atWallet.headers.get('location') as string;
      return { returnUrl, page: await fetch(returnUrl, { redirect: 'manual' }) };
    }
    /** A binding the customer approved at the wallet, traded for snapgate's customer token. */
    async function bound() {
      const r = await bind(bindOrder());
      assert.equal(r.status, 200, r.text);
      const back = await backOf((await answerAtWallet(r.body.redirectUrl, 'approve')).page);
      const t = await customerToken(back.searchParams.get('authCode') as string);
      assert.equal(t.status, 200, t.text);
      return { referenceNo: r.body.referenceNo as string, tokens: t.body as Body };
    }
    const b2b2cCalls = (grantType: string) =>
      wallet.callsTo('access-token/b2b2c').filter((x) => x.body.grantType === grantType);

    it('binds at the wallet: its page asks, snapgate trades its authCode and sends the customer on', async () => {
      const partnerReferenceNo = ref();
      const externalId = newExternalId();
      const r = await bind(bindOrder(partnerReferenceNo), externalId);
      assert.equal(r.status, 200, r.text);
      const { referenceNo } = r.body;
      assert.equal(r.body.responseCode, '2000700');
      assert.equal(r.body.partnerReferenceNo, partnerReferenceNo);
      assert.equal(r.body.redirectUrl, `${wallet.baseUrl}/consent/WB${referenceNo}`, 'the wallet’s own page');
      assert.deepEqual(r.body.additionalInfo, { payOption: 'DANA' });
      const asked = wallet
        .callsTo('registration-account-binding')
        .filter((x) => x.body.partnerReferenceNo === referenceNo);
      assert.equal(asked.length, 1);
      assert.equal(asked[0]?.body.merchantId, WALLET_CLIENT.partnerId);
      assert.equal(asked[0]?.body.phoneNo, '6281298765432');
      assert.match(asked[0]?.body.redirectUrl, new RegExp(`^${gw.url}/bind/[\\w-]{16,}/return$`));
      // The same X-EXTERNAL-ID again: the same answer, the wallet not asked again; another: a duplicate.
      assert.deepEqual((await bind(bindOrder(partnerReferenceNo), externalId)).body, r.body);
      assert.deepEqual((await bind(bindOrder(partnerReferenceNo))).body, {
        responseCode: '4090701',
        responseMessage: 'Duplicate partnerReferenceNo',
      });
      assert.equal(
        wallet.callsTo('registration-account-binding').filter((x) => x.body.partnerReferenceNo === referenceNo).length,
        1,
      );
      // The sandbox wallet's consent page serves none of a connected wallet's bindings.
      const consentPage = String(asked[0]?.body.redirectUrl).replace(/\/return$/, '');
      assert.equal((await fetch(consentPage)).status, 404);

      const { returnUrl, page } = await answerAtWallet(r.body.redirectUrl, 'approve');
      assert.equal(returnUrl.startsWith(`${gw.url}/bind/`), true, returnUrl);
      assert.equal(page.status, 200);
      assert.equal(page.headers.get('cache-control'), 'no-store');
      assert.equal(page.headers.get('referrer-policy'), 'no-referrer');
      const back = await backOf(page);
      assert.equal(`${back.origin}${back.pathname}`, SHOP_BACK);
      assert.equal(back.searchParams.get('state'), partnerReferenceNo);
      assert.equal(back.searchParams.get('resultCode'), '00');
      // snapgate's own one-time code, never the wallet's.
      const authCode = back.searchParams.get('authCode') as string;
      assert.match(authCode, /^[\w-]{43}$/);
      const traded = b2b2cCalls('AUTHORIZATION_CODE').at(-1);
      assert.match(traded?.body.authCode, /^wallet-code-\d+$/);
      assert.equal(new URL(returnUrl).searchParams.get('authCode'), traded?.body.authCode);
      // Back once: the way back is gone.
      assert.equal((await fetch(returnUrl)).status, 404);

      const t = await customerToken(authCode);
      assert.equal(t.status, 200, t.text);
      assert.equal(t.body.additionalInfo.referenceNo, referenceNo);
      const atWallet = wallet.tokensOf(`WB${referenceNo}`);
      assert.ok(atWallet.accessToken && atWallet.refreshToken);
      assert.notEqual(
        t.body.accessToken,
        atWallet.accessToken,
        'the merchant holds snapgate’s token, not the wallet’s',
      );
      // The wallet's tokens are sealed at rest, and never logged.
      const [stored] = await rawSql(
        gw,
        `SELECT wallet_access_token, wallet_refresh_token FROM account_bindings WHERE id = '${referenceNo}'`,
      );
      for (const sealed of [stored?.wallet_access_token, stored?.wallet_refresh_token]) {
        assert.match(String(sealed), /^sg1\./);
      }
      assert.equal(JSON.stringify(stored).includes(atWallet.accessToken), false);
      assert.equal((await gw.store.findBinding({ id: referenceNo }))?.walletAccessToken, atWallet.accessToken);
      const logs = gw.logs.join('');
      for (const secret of [atWallet.accessToken, atWallet.refreshToken, traded?.body.authCode, authCode]) {
        assert.equal(logs.includes(secret), false, 'a token in the logs');
      }
    });

    it('pays from the bound account with the customer’s token at the wallet, and tells the merchant', async () => {
      const { referenceNo: bindingRef, tokens } = await bound();
      const r = await payBound(tokens.accessToken);
      assert.equal(r.status, 200, r.text);
      assert.equal(r.body.webRedirectUrl, undefined, 'no page: the wallet debits the bound account');
      assert.equal(r.body.additionalInfo.bindingReferenceNo, bindingRef);
      const made = wallet
        .callsTo('debit/payment-host-to-host')
        .find((x) => x.body.partnerReferenceNo === r.body.referenceNo);
      assert.equal(made?.customerToken, wallet.tokensOf(`WB${bindingRef}`).accessToken);
      const n = await snapCall(gw.url, dana, `${API}/debit/notify`, {
        originalPartnerReferenceNo: r.body.referenceNo,
        originalReferenceNo: `W${r.body.referenceNo}`,
        latestTransactionStatus: '00',
        amount: idr('25000.00'),
      });
      assert.equal(n.body.responseCode, '2005600', n.text);
      const told = await waitFor('its callback', () =>
        receiver.received.find((x) => x.body.includes(r.body.referenceNo) && x.body.includes('"00"')),
      );
      assert.equal(told.url, '/v1.0/debit/notify');
      // The wallet's own token names nothing here: merchants hold snapgate's.
      const atWallet = wallet.tokensOf(`WB${bindingRef}`).accessToken as string;
      assert.deepEqual((await payBound(atWallet)).body, INVALID_CUSTOMER_TOKEN);
    });

    it('renews the customer’s token at the wallet when it lapses: once, for payments made together', async () => {
      wallet.customerTokensLast(30_000);
      const { referenceNo: bindingRef, tokens } = await bound();
      wallet.customerTokensLast(60 * 60_000);
      const lapsing = wallet.tokensOf(`WB${bindingRef}`).accessToken;
      const renewals = b2b2cCalls('REFRESH_TOKEN').length;
      const paid = await Promise.all([0, 1, 2].map(() => payBound(tokens.accessToken)));
      for (const r of paid) assert.equal(r.status, 200, r.text);
      assert.equal(b2b2cCalls('REFRESH_TOKEN').length, renewals + 1, 'one renewal');
      const renewed = wallet.tokensOf(`WB${bindingRef}`).accessToken;
      assert.notEqual(renewed, lapsing);
      for (const r of paid) {
        const made = wallet
          .callsTo('debit/payment-host-to-host')
          .find((x) => x.body.partnerReferenceNo === r.body.referenceNo);
        assert.equal(made?.customerToken, renewed);
      }
    });

    it('refuses a payment whose wallet token the wallet will not renew, and records nothing of it', async () => {
      wallet.customerTokensLast(30_000);
      const { tokens } = await bound();
      wallet.customerTokensLast(60 * 60_000);
      wallet.answer('access-token/b2b2c', () => ({
        status: 401,
        body: { responseCode: '4017400', responseMessage: 'Unauthorized. [Invalid Refresh Token]' },
      }));
      try {
        const order = payOrder();
        assert.deepEqual((await payBound(tokens.accessToken, order)).body, INVALID_CUSTOMER_TOKEN);
        assert.equal(await gw.store.findTransactionByPartnerRef(m.id, 'ewallet', order.partnerReferenceNo), undefined);
        assert.equal(
          wallet
            .callsTo('debit/payment-host-to-host')
            .some((x) => x.body.partnerReferenceNo === order.partnerReferenceNo),
          false,
        );
      } finally {
        wallet.answer('access-token/b2b2c', undefined);
      }
    });

    it('unbinds at the wallet with the customer’s token there; one the customer ended in the app ends here', async () => {
      const first = await bound();
      const atWallet = wallet.tokensOf(`WB${first.referenceNo}`).accessToken;
      // The wallet refuses: the binding stays, and the merchant may try again.
      wallet.answer('registration-account-unbinding', () => ({
        status: 500,
        body: { responseCode: '5000901', responseMessage: 'Internal Server Error' },
      }));
      assert.deepEqual((await unbind(first.tokens.accessToken)).body, {
        responseCode: '5000902',
        responseMessage: 'External Server Error',
      });
      wallet.answer('registration-account-unbinding', undefined);
      assert.equal((await payBound(first.tokens.accessToken)).status, 200, 'still bound');
      const r = await unbind(first.tokens.accessToken);
      assert.equal(r.status, 200, r.text);
      assert.equal(r.body.unlinkResult, 'success');
      const told = wallet.callsTo('registration-account-unbinding').at(-1);
      assert.equal(told?.body.partnerReferenceNo, first.referenceNo);
      assert.equal(told?.customerToken, atWallet);
      assert.deepEqual((await payBound(first.tokens.accessToken)).body, INVALID_CUSTOMER_TOKEN);
      const ended = await gw.store.findBinding({ id: first.referenceNo });
      assert.equal(ended?.status, 'unbound');
      assert.equal(ended?.walletAccessToken, null, 'the wallet’s tokens are not kept');

      assert.equal(wallet.isBound(`WB${first.referenceNo}`), false, 'unbound at the wallet');

      // The wallet stopped taking its token early: renewed once, the binding ends there too.
      const early = await bound();
      wallet.lapseAccessToken(`WB${early.referenceNo}`);
      const renewals = b2b2cCalls('REFRESH_TOKEN').length;
      const r2 = await unbind(early.tokens.accessToken);
      assert.equal(r2.status, 200, r2.text);
      assert.equal(b2b2cCalls('REFRESH_TOKEN').length, renewals + 1);
      assert.equal(wallet.isBound(`WB${early.referenceNo}`), false, 'unbound at the wallet');

      // The customer ended it in the wallet's app: neither the token nor a renewal is taken there.
      const second = await bound();
      wallet.unbindInApp(`WB${second.referenceNo}`);
      const gone = await unbind(second.tokens.accessToken);
      assert.equal(gone.status, 200, gone.text);
      assert.deepEqual((await payBound(second.tokens.accessToken)).body, INVALID_CUSTOMER_TOKEN);
    });

    it('sends a customer who declines, or whose code the wallet refuses, back without an authCode', async () => {
      const declined = await bind(bindOrder());
      const trades = wallet.callsTo('access-token/b2b2c').length;
      const no = await backOf((await answerAtWallet(declined.body.redirectUrl, 'decline')).page);
      assert.equal(no.searchParams.get('resultCode'), '06');
      assert.equal(no.searchParams.get('authCode'), null);
      assert.equal(wallet.callsTo('access-token/b2b2c').length, trades, 'nothing to trade');
      assert.equal((await gw.store.findBinding({ id: declined.body.referenceNo }))?.status, 'declined');

      const refused = await bind(bindOrder());
      wallet.answer('access-token/b2b2c', () => ({
        status: 401,
        body: { responseCode: '4017400', responseMessage: 'Unauthorized. [Invalid Auth Code]' },
      }));
      try {
        const back = await backOf((await answerAtWallet(refused.body.redirectUrl, 'approve')).page);
        assert.equal(back.searchParams.get('resultCode'), '06');
        assert.equal(back.searchParams.get('authCode'), null);
      } finally {
        wallet.answer('access-token/b2b2c', undefined);
      }
      // A way back with no code, and one to no binding.
      const bare = await bind(bindOrder());
      const returnUrl = (await answerAtWallet(bare.body.redirectUrl, 'approve')).returnUrl;
      const unknown = returnUrl.replace(/\/bind\/[\w-]+\//, '/bind/no-such-binding-0000/');
      assert.equal((await fetch(unknown)).status, 404);
      const noCode = await bind(bindOrder());
      const asked = wallet.callsTo('registration-account-binding').at(-1)?.body.redirectUrl as string;
      const back = await backOf(await fetch(asked));
      assert.equal(back.searchParams.get('resultCode'), '06');
      assert.equal((await gw.store.findBinding({ id: noCode.body.referenceNo }))?.status, 'declined');
    });

    it('refuses a binding the wallet refuses or does not answer in time, and frees its reference', async () => {
      const partnerReferenceNo = ref();
      const answers: Array<[string, () => any, Body]> = [
        [
          'refuses',
          () => ({ status: 403, body: { responseCode: '4030705', responseMessage: 'Do Not Honor' } }),
          { responseCode: '5000702', responseMessage: 'External Server Error' },
        ],
        [
          'gives no page',
          () => ({ status: 200, body: { responseCode: '2000700', responseMessage: 'Successful' } }),
          { responseCode: '5000702', responseMessage: 'External Server Error' },
        ],
        [
          'gives a script for a page',
          () => ({
            status: 200,
            body: { responseCode: '2000700', responseMessage: 'Successful', redirectUrl: 'javascript:alert(1)' },
          }),
          { responseCode: '5000702', responseMessage: 'External Server Error' },
        ],
        ['does not answer', () => ({ hold: true }), { responseCode: '5040700', responseMessage: 'Timeout' }],
      ];
      for (const [what, answer, refusal] of answers) {
        wallet.answer('registration-account-binding', answer);
        try {
          assert.deepEqual((await bind(bindOrder(partnerReferenceNo))).body, refusal, what);
        } finally {
          wallet.answer('registration-account-binding', undefined);
        }
      }
      const r = await bind(bindOrder(partnerReferenceNo));
      assert.equal(r.status, 200, r.text);
    });

    it('answers 409 while a twin waits for the wallet, and frees a reference the wallet never answered', async () => {
      const waiting = async (partnerReferenceNo: string, createdAt: number) => {
        const id = `9${Date.now()}${++refs}`;
        await gw.store.insertBinding({
          id,
          merchantId: m.id,
          partnerReferenceNo,
          providerId: danaId,
          payOption: 'DANA',
          status: 'pending',
          redirectUrl: SHOP_BACK,
          phoneNo: null,
          consentId: `consent-${id}`,
          authCodeHash: null,
          authCodeExpiresAt: null,
          accessTokenHash: null,
          accessTokenExpiresAt: null,
          refreshTokenHash: null,
          refreshTokenExpiresAt: null,
          walletReferenceNo: null,
          walletRedirectUrl: null,
          walletAccessToken: null,
          walletAccessTokenExpiresAt: null,
          walletRefreshToken: null,
          walletRefreshTokenExpiresAt: null,
          createdAt,
          updatedAt: createdAt,
        });
        return id;
      };
      const now = ref();
      await waiting(now, Date.now());
      assert.deepEqual((await bind(bindOrder(now))).body, { responseCode: '4090700', responseMessage: 'Conflict' });
      const stale = ref();
      const left = await waiting(stale, Date.now() - 3 * 60_000);
      const r = await bind(bindOrder(stale));
      assert.equal(r.status, 200, r.text);
      const given = await gw.store.findBinding({ id: left });
      assert.equal(given?.status, 'declined');
      assert.equal(given?.partnerReferenceNo, `${stale}#${left}`);
    });
  });

  describe(`account binding at a connected wallet: an approval never traded (${under.name})`, () => {
    it('is released when its authCode lapses: the wallet’s tokens dropped, the binding ended there', async () => {
      const clock = createManualClock(Date.now());
      const world = await startWalletWorld(under, 'Toko Lupa', clock);
      try {
        const { gw, wallet, c } = world;
        const r = await snapCall(gw.url, c, `${API}/registration-account-binding`, bindOrder());
        assert.equal(r.status, 200, r.text);
        const atWallet = await fetch(`${r.body.redirectUrl}?answer=approve`, { redirect: 'manual' });
        const back = await backOf(await fetch(atWallet.headers.get('location') as string));
        assert.equal(back.searchParams.get('resultCode'), '00');
        const ref = `WB${r.body.referenceNo}`;
        const token = wallet.tokensOf(ref).accessToken;
        // Within its 10 minutes nothing happens.
        clock.advance(9 * 60_000);
        await gw.gateway.expiry.runOnce();
        assert.equal((await gw.store.findBinding({ id: r.body.referenceNo }))?.status, 'authorized');
        assert.equal(wallet.isBound(ref), true);
        clock.advance(2 * 60_000);
        await gw.gateway.expiry.runOnce();
        const released = await gw.store.findBinding({ id: r.body.referenceNo });
        assert.equal(released?.status, 'declined');
        assert.equal(released?.walletAccessToken, null);
        assert.equal(released?.walletRefreshToken, null);
        assert.equal(wallet.isBound(ref), false, 'ended at the wallet');
        assert.equal(wallet.callsTo('registration-account-unbinding').at(-1)?.customerToken, token);
      } finally {
        await world.close();
      }
    });
  });
}

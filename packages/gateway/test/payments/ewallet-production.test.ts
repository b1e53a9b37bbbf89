// E-wallets in production mode (docs/ewallets.md#which-wallets): the sandbox wallet takes nothing,
// its page and its admin route do not exist, and a PAY_NOTIFY url is held to the production rules of
// every callback URL (https, never a loopback, private or metadata address).
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { startGateway, type TestGateway } from '../helpers/gateway.ts';
import { authenticate, type SnapCaller, snapCall } from '../helpers/snap.ts';

const PAY = '/api/snap/v1.0/debit/payment-host-to-host';
const idr = (value: string) => ({ value, currency: 'IDR' });
let n = 0;
const order = (extra: Record<string, unknown> = {}) => ({
  partnerReferenceNo: `PRODEW-${++n}`,
  amount: idr('10000.00'),
  payOptionDetails: [{ payMethod: 'EMONEY', payOption: 'SANDBOXPAY', transAmount: idr('10000.00') }],
  ...extra,
});
const notifyAt = (url: string) => ({ urlParams: [{ url, type: 'PAY_NOTIFY', isDeeplink: 'N' }] });

describe('e-wallets in production mode', () => {
  let gw: TestGateway;
  let c: SnapCaller;
  before(async () => {
    gw = await startGateway({ env: { SNAPGATE_MODE: 'production', SNAPGATE_RATE_LIMIT: 'off' } });
    c = await authenticate(gw.url, await gw.createMerchant({ name: 'Production Shop' }));
  });
  after(() => gw.close());

  it('refuses the sandbox wallet (403 4035401) and records nothing', async () => {
    const r = await snapCall(gw.url, c, PAY, order());
    assert.equal(r.status, 403, r.text);
    assert.deepEqual(r.body, {
      responseCode: '4035401',
      responseMessage: 'Feature Not Allowed [Pay Option Not Available]',
    });
    assert.equal((await gw.admin('GET', '/transactions?kind=ewallet')).body.items.length, 0);
    assert.equal(await gw.store.getSetting('sandbox_wallet_provider_id'), undefined, 'no sandbox wallet exists');
  });

  it('refuses a PAY_NOTIFY url in http, or at a loopback or private address (400 4005401)', async () => {
    for (const url of ['http://shop.example/notify', 'https://127.0.0.1/notify', 'https://10.0.0.5/notify']) {
      const r = await snapCall(gw.url, c, PAY, order(notifyAt(url)));
      assert.equal(r.status, 400, `${url}: ${r.text}`);
      assert.deepEqual(r.body, { responseCode: '4005401', responseMessage: 'Invalid Field Format {urlParams[0].url}' });
    }
  });

  it('serves neither the sandbox wallet’s page nor its admin route (404)', async () => {
    assert.equal((await fetch(`${gw.url}/pay/AAAAAAAAAAAAAAAAAAAAAA/wallet`)).status, 404);
    const posted = await fetch(`${gw.url}/pay/AAAAAAAAAAAAAAAAAAAAAA/wallet`, {
      method: 'POST',
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
      body: 'answer=approve',
    });
    assert.equal(posted.status, 404);
    assert.equal((await gw.admin('POST', '/sandbox/ewallet/000000000000000000/pay', {})).status, 404);
  });
});

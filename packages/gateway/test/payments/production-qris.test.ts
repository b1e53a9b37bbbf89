// docs/protocol.md#qris-in-production: production issues a QRIS only when a real payer could pay
// it: with the operator's NMID for the merchant, or through the merchant's acquirer.
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { startGateway, type TestGateway } from '../helpers/gateway.ts';
import { authenticate, snapCall } from '../helpers/snap.ts';

const GENERATE = '/api/snap/v1.0/qr/qr-mpm-generate';
let n = 0;
const order = () => ({ partnerReferenceNo: `PRODQR-${++n}`, amount: { value: '10000.00', currency: 'IDR' } });

describe('QRIS in production mode', () => {
  let gw: TestGateway;
  before(async () => {
    gw = await startGateway({ env: { SNAPGATE_MODE: 'production' } });
  });
  after(() => gw.close());

  it('refuses a QRIS for a merchant with neither the operator’s NMID nor an acquirer, saying why', async () => {
    const m = await gw.createMerchant({ name: 'No NMID' });
    const r = await snapCall(gw.url, await authenticate(gw.url, m), GENERATE, order());
    assert.equal(r.status, 405);
    assert.deepEqual(r.body, {
      responseCode: '4054701',
      responseMessage: 'Requested Operation Is Not Allowed [Merchant Has No NMID Or Acquirer]',
    });
    const listed = await gw.admin('GET', `/transactions?merchantId=${m.id}`);
    assert.equal(listed.body.items.length, 0, 'nothing is recorded');
    assert.equal('nmidGenerated' in (await gw.admin('GET', `/merchants/${m.id}`)).body, false);
  });

  it('issues it once the operator sets the merchant’s NMID, and at once for a merchant created with one', async () => {
    const m = await gw.createMerchant({ name: 'Later NMID' });
    const caller = await authenticate(gw.url, m);
    assert.equal((await gw.admin('PATCH', `/merchants/${m.id}`, { nmid: 'ID1020021181745' })).status, 200);
    assert.equal((await snapCall(gw.url, caller, GENERATE, order())).status, 200);
    const withNmid = await gw.createMerchant({ name: 'With NMID', nmid: 'ID1020021181746' });
    const r = await snapCall(gw.url, await authenticate(gw.url, withNmid), GENERATE, order());
    assert.equal(r.status, 200, r.text);
  });
});

describe('QRIS in sandbox mode', () => {
  it('is issued with the NMID the gateway made up', async () => {
    const gw = await startGateway({});
    try {
      const m = await gw.createMerchant({ name: 'Sandbox' });
      assert.equal((await snapCall(gw.url, await authenticate(gw.url, m), GENERATE, order())).status, 200);
    } finally {
      await gw.close();
    }
  });
});

import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { startGateway, type TestGateway, type TestMerchant } from '../helpers/gateway.ts';
import { postToken } from '../helpers/snap.ts';

describe('health, metrics and logs', () => {
  let gw: TestGateway;
  let m: TestMerchant;
  before(async () => {
    gw = await startGateway({ env: { SNAPGATE_LOG_LEVEL: 'trace' } });
    m = await gw.createMerchant();
  });
  after(() => gw.close());

  it('answers /healthz and /readyz', async () => {
    const h = await fetch(`${gw.url}/healthz`);
    assert.equal(h.status, 200);
    const r = await fetch(`${gw.url}/readyz`);
    assert.deepEqual(await r.json(), { status: 'ready', store: 'sqlite' });
  });

  it('counts token requests by responseCode and observes their latency', async () => {
    await postToken(gw.url, { clientKey: m.clientKey, clientSecret: m.clientSecret });
    await postToken(gw.url, { clientKey: m.clientKey, clientSecret: 'wrong' });
    const text = await (await fetch(`${gw.url}/metrics`)).text();
    assert.match(text, /snapgate_snap_requests_total\{operation="access-token-b2b",responseCode="2007100"\} [1-9]/);
    assert.match(text, /snapgate_snap_requests_total\{operation="access-token-b2b",responseCode="4017100"\} [1-9]/);
    assert.match(
      text,
      /snapgate_snap_request_duration_seconds_count\{operation="access-token-b2b",responseCode="2007100"\} [1-9]/,
    );
  });

  it('never writes secrets, signatures or tokens to the log', async () => {
    const ok = await postToken(gw.url, { clientKey: m.clientKey, clientSecret: m.clientSecret });
    const bad = await postToken(gw.url, { clientKey: m.clientKey, clientSecret: 'not-the-secret' });
    assert.equal(bad.status, 401);
    await gw.admin('POST', `/merchants/${m.id}/rotate-secret`, {});
    const all = gw.logs.join('');
    assert.ok(all.length > 0, 'the log saw the requests');
    assert.equal(all.includes(m.clientSecret), false);
    assert.equal(all.includes(ok.body.accessToken), false);
    assert.equal(all.includes(ok.body.accessToken.split('.')[2]), false);
    assert.equal(all.includes('test-admin-token-0123456789'), false);
  });
});

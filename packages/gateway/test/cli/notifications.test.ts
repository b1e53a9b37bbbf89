import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { runCli } from '../helpers/cli.ts';
import { startGateway, type TestGateway } from '../helpers/gateway.ts';
import { ack, closedPort, type Receiver, startReceiver, waitFor } from '../helpers/receiver.ts';
import { authenticate, snapCall } from '../helpers/snap.ts';

const run = runCli;

describe('snapgate notifications … and report undelivered', () => {
  let gw: TestGateway;
  let receiver: Receiver;
  before(async () => {
    receiver = await startReceiver(ack);
    gw = await startGateway({
      dispatch: true,
      env: { SNAPGATE_RATE_LIMIT: 'off', SNAPGATE_RETRY_SCHEDULE: '0s', SNAPGATE_CALLBACK_TIMEOUT_MS: '300' },
    });
  });
  after(async () => {
    await gw.close();
    await receiver.close();
  });

  it('lists, shows, reports, recovers and replays', async () => {
    const port = await closedPort();
    const m = await gw.createMerchant({ callbackBaseUrl: `http://127.0.0.1:${port}` });
    const c = await authenticate(gw.url, m);
    const g = (
      await snapCall(gw.url, c, '/api/snap/v1.0/qr/qr-mpm-generate', {
        partnerReferenceNo: 'N-1',
        amount: { value: '1.00', currency: 'IDR' },
      })
    ).body;
    await gw.admin('POST', `/sandbox/qris/${g.referenceNo}/pay`, {});
    const [n] = await gw.store.notificationsOf(g.referenceNo);
    await waitFor('dead', async () => (await gw.store.findNotification(n?.id ?? ''))?.state === 'dead');

    const list = await run(gw, 'notifications', 'list', '--merchant', m.id, '--state', 'dead');
    assert.equal(list.code, 0, list.err);
    assert.match(list.out, new RegExp(`${n?.id}\\s+${g.referenceNo}\\s+qris\\s+00\\s+dead\\s+1`));

    const show = await run(gw, 'notifications', 'show', n?.id ?? '', '--json');
    assert.equal(show.code, 0);
    assert.equal(JSON.parse(show.out).attempts[0].outcome, 'error');

    const report = await run(gw, 'report', 'undelivered', '--merchant', m.id);
    assert.equal(report.code, 0);
    assert.match(report.out, new RegExp(`${g.referenceNo}.*dead`));

    await gw.admin('PATCH', `/merchants/${m.id}`, { callbackBaseUrl: receiver.baseUrl });
    const rec = await run(
      gw,
      'notifications',
      'recover',
      '--merchant',
      m.id,
      '--since',
      new Date(Date.now() - 3600_000).toISOString(),
      '--json',
    );
    assert.equal(rec.code, 0, rec.err);
    assert.equal(JSON.parse(rec.out).recovered, 1);
    await waitFor('delivered', async () => (await gw.store.findNotification(n?.id ?? ''))?.state === 'delivered');

    const replay = await run(gw, 'notifications', 'replay', n?.id ?? '');
    assert.equal(replay.code, 0, replay.err);
    await waitFor('replayed', () => receiver.received.filter((r) => r.headers['x-external-id'] === n?.id).length === 2);
    assert.equal((await run(gw, 'notifications', 'replay', 'nope')).code, 1);
    assert.equal((await run(gw, 'notifications', 'recover', '--merchant', m.id)).code, 2);
  });
});

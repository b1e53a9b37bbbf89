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
    const shown = await run(gw, 'notifications', 'show', n?.id ?? '');
    assert.equal(shown.code, 0, shown.err);
    assert.match(shown.out, /attempts\s+\[1\]\n\n {2}attemptNo\s+1\n/);

    const report = await run(gw, 'report', 'undelivered', '--merchant', m.id);
    assert.equal(report.code, 0);
    assert.match(report.out, new RegExp(`${g.referenceNo}.*dead`));

    await gw.admin('PATCH', `/merchants/${m.id}`, { callbackBaseUrl: receiver.baseUrl });
    const rec = await run(gw, 'notifications', 'recover', '--merchant', m.id, '--since', '1h', '--json');
    assert.equal(rec.code, 0, rec.err);
    assert.equal(JSON.parse(rec.out).recovered, 1);
    await waitFor('delivered', async () => (await gw.store.findNotification(n?.id ?? ''))?.state === 'delivered');

    const replay = await run(gw, 'notifications', 'replay', n?.id ?? '');
    assert.equal(replay.code, 0, replay.err);
    await waitFor('replayed', () => receiver.received.filter((r) => r.headers['x-external-id'] === n?.id).length === 2);
    await waitFor('settled', async () => (await gw.store.findNotification(n?.id ?? ''))?.state === 'delivered');

    // --wait: the attempt the replay made, and its outcome.
    const waited = await run(gw, 'notifications', 'replay', n?.id ?? '', '--wait', '--timeout', '10s');
    assert.equal(waited.code, 0, waited.err);
    assert.match(waited.out, /^replayed \d+ /);
    assert.match(waited.out, /attempt 4: acknowledged \(HTTP 200 in \d+ ms\)/);
    const waitedJson = await run(gw, 'notifications', 'replay', n?.id ?? '', '--wait', '--json');
    assert.equal(waitedJson.code, 0, waitedJson.err);
    const w = JSON.parse(waitedJson.out);
    assert.equal(w.replayed.id, n?.id);
    assert.equal(w.attempt.attemptNo, 5);
    assert.equal(w.attempt.outcome, 'acknowledged');

    // Every attempt its own block, separated by a blank line.
    const blocks = await run(gw, 'notifications', 'show', n?.id ?? '');
    assert.equal(blocks.code, 0, blocks.err);
    const attempts = blocks.out.slice(blocks.out.indexOf('attempts')).split('\n\n');
    assert.match(attempts[0] ?? '', /^attempts\s+\[5\]$/);
    assert.deepEqual(
      attempts.slice(1).map((b) => /^ {2}attemptNo\s+(\d+)$/m.exec(b)?.[1]),
      ['1', '2', '3', '4', '5'],
    );
    for (const b of attempts.slice(1)) assert.match(b, /^ {2}outcome\s+(error|acknowledged)$/m);
    assert.equal(/^\s*- /m.test(blocks.out), false);
    assert.equal((await run(gw, 'notifications', 'replay', 'nope')).code, 1);
    assert.equal((await run(gw, 'notifications', 'recover', '--merchant', m.id)).code, 2);
    assert.equal((await run(gw, 'notifications', 'recover', '--merchant', m.id, '--since', 'yesterday')).code, 2);
    assert.equal((await run(gw, 'notifications', 'replay', n?.id ?? '', '--wait', '--timeout', 'soon')).code, 2);
  });

  it('replay --wait exits 1 when the attempt is not acknowledged', async () => {
    const port = await closedPort();
    const m = await gw.createMerchant({ callbackBaseUrl: `http://127.0.0.1:${port}` });
    const c = await authenticate(gw.url, m);
    const g = (
      await snapCall(gw.url, c, '/api/snap/v1.0/qr/qr-mpm-generate', {
        partnerReferenceNo: 'N-2',
        amount: { value: '1.00', currency: 'IDR' },
      })
    ).body;
    await gw.admin('POST', `/sandbox/qris/${g.referenceNo}/pay`, {});
    const [n] = await gw.store.notificationsOf(g.referenceNo);
    await waitFor('dead', async () => (await gw.store.findNotification(n?.id ?? ''))?.state === 'dead');

    const r = await run(gw, 'notifications', 'replay', n?.id ?? '', '--wait');
    assert.equal(r.code, 1);
    assert.match(r.out, /attempt 2: error \(no answer/);
    assert.match(r.err, /attempt 2 was not acknowledged/);

    // A date alone: midnight in Jakarta today, which this notification is younger than.
    const today = new Intl.DateTimeFormat('en-CA', { timeZone: 'Asia/Jakarta' }).format(new Date());
    await waitFor('dead again', async () => (await gw.store.findNotification(n?.id ?? ''))?.state === 'dead');
    const rec = await run(gw, 'notifications', 'recover', '--merchant', m.id, '--since', today, '--json');
    assert.equal(rec.code, 0, rec.err);
    assert.equal(JSON.parse(rec.out).recovered, 1);
  });
});

describe('snapgate notifications replay --wait without a dispatcher', () => {
  let gw: TestGateway;
  before(async () => {
    gw = await startGateway({ env: { SNAPGATE_RATE_LIMIT: 'off' } });
  });
  after(() => gw.close());

  it('gives up after --timeout with exit 1', async () => {
    const m = await gw.createMerchant({ callbackBaseUrl: 'http://127.0.0.1:9' });
    const c = await authenticate(gw.url, m);
    const g = (
      await snapCall(gw.url, c, '/api/snap/v1.0/qr/qr-mpm-generate', {
        partnerReferenceNo: 'N-3',
        amount: { value: '1.00', currency: 'IDR' },
      })
    ).body;
    await gw.admin('POST', `/sandbox/qris/${g.referenceNo}/pay`, {});
    const [n] = await gw.store.notificationsOf(g.referenceNo);
    const started = Date.now();
    const r = await run(gw, 'notifications', 'replay', n?.id ?? '', '--wait', '--timeout', '600ms');
    assert.equal(r.code, 1, r.out);
    assert.match(r.err, /no new attempt was recorded within 600ms/);
    assert.ok(Date.now() - started >= 500);
  });
});

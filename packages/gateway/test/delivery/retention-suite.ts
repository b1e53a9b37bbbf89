// SNAPGATE_RETENTION_DAYS: delivered attempts lose their bodies and old idempotency keys go, in
// small batches; transactions, their history and an undelivered backlog are untouched.
import assert from 'node:assert/strict';
import { Writable } from 'node:stream';
import { after, before, describe, it } from 'node:test';
import { formatJakartaTimestamp, jakartaDay } from '@snapgate/snap';
import { createManualClock } from '../../src/clock.ts';
import { createPruner } from '../../src/delivery/retention.ts';
import { createLogger } from '../../src/logger.ts';
import { startGateway, type TestGateway } from '../helpers/gateway.ts';
import { ACK, startReceiver, waitFor } from '../helpers/receiver.ts';
import { authenticate, snapCall } from '../helpers/snap.ts';
import type { StoreUnderTest } from '../helpers/store-under-test.ts';

const DAY = 86_400_000;

export function retentionSuite(under: StoreUnderTest): void {
  describe(`retention (${under.name})`, () => {
    const clock = createManualClock(Date.now());
    let gw: TestGateway;
    let cleanup: () => Promise<void>;
    const receivers: Array<Awaited<ReturnType<typeof startReceiver>>> = [];
    before(async () => {
      const opened = await under.open();
      cleanup = opened.cleanup;
      gw = await startGateway({
        clock,
        dispatch: true,
        env: { SNAPGATE_RETRY_SCHEDULE: '0s,1h', SNAPGATE_RATE_LIMIT: 'off' },
        ...(opened.store ? { store: opened.store } : {}),
      });
    });
    after(async () => {
      await gw.close();
      for (const r of receivers) await r.close();
      await cleanup();
    });

    it('prunes delivered attempts’ bodies and old idempotency keys, batch by batch, and nothing else', async () => {
      const ok = await startReceiver((_req, res) => {
        res.writeHead(200, { 'content-type': 'application/json' }).end(ACK);
      });
      const down = await startReceiver((_req, res) => {
        res.writeHead(500, { 'content-type': 'application/json' }).end('{"responseCode":"5000000"}');
      });
      receivers.push(ok, down);
      const pay = async (baseUrl: string, n: number) => {
        const m = await gw.createMerchant({ callbackBaseUrl: baseUrl });
        const c = await authenticate(gw.url, m);
        const refs: Array<{ ref: string; externalId: string; merchantId: string }> = [];
        for (let i = 0; i < n; i++) {
          const externalId = `${clock.now()}${i}${Math.floor(Math.random() * 1e6)}`;
          const qr = await snapCall(
            gw.url,
            c,
            '/api/snap/v1.0/qr/qr-mpm-generate',
            { partnerReferenceNo: `RET-${baseUrl.slice(-5)}-${i}`, amount: { value: '1.00', currency: 'IDR' } },
            { externalId, timestamp: formatJakartaTimestamp(clock.now()) },
          );
          assert.equal(qr.status, 200, qr.text);
          await gw.admin('POST', `/sandbox/qris/${qr.body.referenceNo}/pay`, {});
          refs.push({ ref: qr.body.referenceNo, externalId, merchantId: m.id });
        }
        return refs;
      };
      const delivered = await pay(ok.baseUrl, 3);
      const backlog = await pay(down.baseUrl, 2);
      const stateOf = async (ref: string) => (await gw.store.notificationsOf(ref))[0];
      await waitFor('delivered and failed once', async () => {
        const a = await Promise.all(delivered.map((d) => stateOf(d.ref)));
        const b = await Promise.all(backlog.map((d) => stateOf(d.ref)));
        return a.every((n) => n?.state === 'delivered') && b.every((n) => n?.state === 'retrying');
      });
      const day = jakartaDay(clock.now());
      // The clock is about to jump 91 days: the dispatcher must not retry the backlog meanwhile.
      await gw.gateway.dispatcher.stop();

      // Not old enough yet: nothing goes.
      const lines: string[] = [];
      const sink = new Writable({
        write(c, _e, cb) {
          lines.push(String(c));
          cb();
        },
      });
      const logger = createLogger('info', sink);
      const pruner = createPruner({ store: gw.store, clock, logger, retentionDays: 90, batch: 2 });
      assert.deepEqual(await pruner.runOnce(), { attempts: 0, idempotencyKeys: 0 });

      clock.advance(91 * DAY);
      const pruned = await pruner.runOnce();
      assert.equal(pruned.attempts, 3, 'the three delivered attempts, in batches of two');
      assert.ok(pruned.idempotencyKeys >= 5, `every SNAP call's key (${pruned.idempotencyKeys})`);
      assert.match(lines.join(''), /retention: pruned/);

      for (const d of delivered) {
        const n = await stateOf(d.ref);
        const [attempt] = await gw.store.attemptsOf(n?.id ?? '');
        assert.deepEqual(attempt?.requestHeaders, {});
        assert.equal(attempt?.responseBody, null);
        assert.equal(attempt?.outcome, 'acknowledged', 'the attempt itself is kept');
        assert.equal((await gw.store.findTransaction(d.ref))?.status, '00');
        assert.equal((await gw.store.statusHistory(d.ref)).length, 2);
        assert.equal(
          await gw.store.findIdempotency({ merchantId: d.merchantId, day, externalId: d.externalId }),
          undefined,
        );
      }
      for (const d of backlog) {
        const n = await stateOf(d.ref);
        assert.equal(n?.state, 'retrying', 'the backlog is untouched');
        const [attempt] = await gw.store.attemptsOf(n?.id ?? '');
        assert.notDeepEqual(attempt?.requestHeaders, {});
        assert.match(attempt?.responseBody ?? '', /5000000/);
      }
      assert.deepEqual(await pruner.runOnce(), { attempts: 0, idempotencyKeys: 0 }, 'nothing twice');
    });
  });
}

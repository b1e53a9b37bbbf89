// A merchant can have its own retry schedule: tested against a short one while the others keep
// the gateway's. The gateway runs on a manual clock: a retry falls due when the test moves time on,
// not after seconds of real waiting.
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { createManualClock, type ManualClock } from '../../src/clock.ts';
import { startGateway, type TestGateway } from '../helpers/gateway.ts';
import { startReceiver, waitFor } from '../helpers/receiver.ts';
import { authenticate, snapCall } from '../helpers/snap.ts';

describe('a per-merchant retry schedule', () => {
  let gw: TestGateway;
  let clock: ManualClock;
  let failing: Awaited<ReturnType<typeof startReceiver>>;
  before(async () => {
    clock = createManualClock(Date.now());
    gw = await startGateway({ dispatch: true, clock, env: { SNAPGATE_RETRY_SCHEDULE: '0s,1h' } });
    failing = await startReceiver((_req, res) => {
      res.writeHead(500, { 'content-type': 'application/json' }).end('{"responseCode":"5000000"}');
    });
  });
  after(async () => {
    await gw.close();
    await failing.close();
  });

  const payOne = async (merchant: { clientKey: string; clientSecret: string; partnerId: string }, ref: string) => {
    const c = await authenticate(gw.url, merchant);
    const qr = await snapCall(gw.url, c, '/api/snap/v1.0/qr/qr-mpm-generate', {
      partnerReferenceNo: ref,
      amount: { value: '1.00', currency: 'IDR' },
    });
    await gw.admin('POST', `/sandbox/qris/${qr.body.referenceNo}/pay`, {});
    return qr.body.referenceNo as string;
  };
  const noteOf = async (ref: string) => (await gw.admin('GET', `/notifications?referenceNo=${ref}`)).body.items[0];
  const attemptsMade = (ref: string, count: number, state: string) =>
    waitFor(`${ref}: attempt ${count}, ${state}`, async () => {
      const n = await noteOf(ref);
      return n?.attemptCount === count && n.state === state ? n : undefined;
    });
  // Past the next step of the short schedule (1 s, jitter at most +10 %), far short of the gateway's hour.
  const nextStepDue = () => {
    clock.advance(2000);
    gw.gateway.dispatcher.wake();
  };

  it('retries one merchant on its own short schedule until dead; the other waits for the gateway’s', async () => {
    const quick = await gw.createMerchant({ callbackBaseUrl: failing.baseUrl, retrySchedule: '0s,1s,1s' });
    assert.equal(quick.retrySchedule, '0s,1s,1s');
    const usual = await gw.createMerchant({ callbackBaseUrl: failing.baseUrl });
    assert.equal(usual.retrySchedule, null);
    const quickRef = await payOne(quick, 'SCHED-1');
    const usualRef = await payOne(usual, 'SCHED-2');
    const first = await attemptsMade(quickRef, 1, 'retrying');
    const firstDueInMs = Date.parse(first.nextAttemptAt) - clock.now();
    assert.ok(firstDueInMs >= 900 && firstDueInMs <= 1100, `the merchant’s 1 s, jittered: ${firstDueInMs} ms`);
    await attemptsMade(usualRef, 1, 'retrying');
    nextStepDue();
    await attemptsMade(quickRef, 2, 'retrying');
    nextStepDue();
    const dead = await attemptsMade(quickRef, 3, 'dead');
    assert.equal(dead.nextAttemptAt, null);
    const waiting = await noteOf(usualRef);
    assert.equal(waiting.state, 'retrying');
    assert.equal(waiting.attemptCount, 1);
    assert.ok(Date.parse(waiting.nextAttemptAt) - clock.now() > 50 * 60_000, 'the gateway’s hour');
  });

  it('refuses a schedule it cannot read, and goes back to the gateway’s with null', async () => {
    const m = await gw.createMerchant({ retrySchedule: '0s,1s' });
    const bad = await gw.admin('PATCH', `/merchants/${m.id}`, { retrySchedule: 'soon, later' });
    assert.equal(bad.status, 400);
    assert.match(bad.body.errors.join(), /retrySchedule: must be a comma-separated list of durations/);
    const reset = await gw.admin('PATCH', `/merchants/${m.id}`, { retrySchedule: null });
    assert.equal(reset.status, 200);
    assert.equal(reset.body.retrySchedule, null);
  });
});

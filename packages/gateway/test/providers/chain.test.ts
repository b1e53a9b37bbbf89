import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { formatJakartaTimestamp } from '@snapgate/snap';
import { createManualClock } from '../../src/clock.ts';
import { startGateway } from '../helpers/gateway.ts';
import { closedPort } from '../helpers/receiver.ts';
import { authenticate, snapCall } from '../helpers/snap.ts';
import { SQLITE } from '../helpers/store-under-test.ts';
import { chainSuite, GENERATE, idr } from './chain-suite.ts';

chainSuite(SQLITE);

describe('reconciliation with an upstream acquirer', () => {
  it('recovers a lost notify: a minute past validityPeriod, A asks B (51) and applies its answer', {
    timeout: 60_000,
  }, async () => {
    const nowhere = `http://127.0.0.1:${await closedPort()}`;
    const b = await startGateway();
    const clock = createManualClock(Date.now());
    const a = await startGateway({ clock });
    try {
      // B's callbacks to A go nowhere: A learns of the payment only by asking.
      const aAtB = await b.createMerchant({ name: 'A', callbackBaseUrl: nowhere });
      const acquirer = await a.admin('POST', '/providers', {
        name: 'B',
        kind: 'acquirer',
        bankCode: '936',
        outbound: {
          baseUrl: b.url,
          clientKey: aAtB.clientKey,
          clientSecret: aAtB.clientSecret,
          partnerId: aAtB.partnerId,
        },
      });
      const m = await a.createMerchant({ qrisProvider: acquirer.body.id });
      const merchant = await authenticate(a.url, m);
      const paidOrder = await snapCall(a.url, merchant, GENERATE, {
        partnerReferenceNo: 'R-PAID',
        amount: idr('7000.00'),
        validityPeriod: formatJakartaTimestamp(clock.now() + 5_000),
      });
      const unpaidOrder = await snapCall(a.url, merchant, GENERATE, {
        partnerReferenceNo: 'R-UNPAID',
        amount: idr('7000.00'),
        validityPeriod: formatJakartaTimestamp(clock.now() + 5_000),
      });
      const atB = (await b.admin('GET', `/transactions?merchantId=${aAtB.id}`)).body.items.find(
        (t: { partnerReferenceNo: string }) => t.partnerReferenceNo === paidOrder.body.referenceNo,
      );
      assert.equal((await b.admin('POST', `/sandbox/qris/${atB.referenceNo}/pay`, {})).status, 200);

      // Past validityPeriod but within the minute: A neither expires nor asks yet.
      clock.advance(30_000);
      await a.gateway.expiry.runOnce();
      assert.equal((await a.store.findTransaction(paidOrder.body.referenceNo))?.status, '01');
      clock.advance(40_000);
      await a.gateway.expiry.runOnce();
      const paid = await a.store.findTransaction(paidOrder.body.referenceNo);
      assert.deepEqual([paid?.status, paid?.paidAmount], ['00', '7000.00']);
      assert.deepEqual(
        (await a.store.notificationsOf(paidOrder.body.referenceNo)).map((n) => n.latestStatus),
        ['00'],
      );
      // B still reports the other one open: A cancels it at B, so it can no longer be paid there,
      // and expires it.
      const unpaid = await a.store.findTransaction(unpaidOrder.body.referenceNo);
      assert.deepEqual([unpaid?.status, unpaid?.statusDesc], ['06', 'Expired']);
      const unpaidAtB = (await b.admin('GET', `/transactions?merchantId=${aAtB.id}`)).body.items.find(
        (t: { partnerReferenceNo: string }) => t.partnerReferenceNo === unpaidOrder.body.referenceNo,
      );
      assert.equal(unpaidAtB.status, '05');
    } finally {
      await a.close();
      await b.close();
    }
  });
});

describe('an upstream acquirer that is slow or does not speak SNAP', () => {
  it('answers 504 5044700 past SNAPGATE_UPSTREAM_TIMEOUT_MS and 500 5004702 for a non-SNAP answer; the order stays retryable', {
    timeout: 30_000,
  }, async () => {
    const { createServer } = await import('node:http');
    let mode: 'hang' | 'html' = 'hang';
    const acquirer = createServer((req, res) => {
      req.resume();
      if (req.url?.endsWith('/access-token/b2b')) {
        res.writeHead(200, { 'content-type': 'application/json' });
        res.end('{"responseCode":"2007300","responseMessage":"Successful","accessToken":"t","expiresIn":900}');
      } else if (mode === 'html') {
        res.writeHead(502, { 'content-type': 'text/html' }).end('<html>bad gateway</html>');
      }
      // 'hang': never answers
    });
    await new Promise<void>((resolve) => acquirer.listen(0, '127.0.0.1', resolve));
    const port = (acquirer.address() as { port: number }).port;
    const a = await startGateway({ env: { SNAPGATE_UPSTREAM_TIMEOUT_MS: '300' } });
    try {
      const p = await a.admin('POST', '/providers', {
        name: 'Slow',
        kind: 'acquirer',
        bankCode: '936',
        outbound: { baseUrl: `http://127.0.0.1:${port}`, clientKey: 'k', clientSecret: 's', partnerId: 'P' },
      });
      const merchant = await authenticate(a.url, await a.createMerchant({ qrisProvider: p.body.id }));
      const slow = await snapCall(a.url, merchant, GENERATE, { partnerReferenceNo: 'S-1', amount: idr('1.00') });
      assert.equal(slow.status, 504);
      assert.deepEqual(slow.body, { responseCode: '5044700', responseMessage: 'Timeout' });
      mode = 'html';
      const html = await snapCall(a.url, merchant, GENERATE, { partnerReferenceNo: 'S-1', amount: idr('1.00') });
      assert.deepEqual(html.body, { responseCode: '5004702', responseMessage: 'External Server Error' });
      const failed = (await a.admin('GET', '/transactions?status=06')).body.items;
      assert.equal(failed.length, 2);
      assert.ok(failed.every((t: { statusDesc: string }) => t.statusDesc === 'Upstream Failed'));
    } finally {
      await a.close();
      acquirer.closeAllConnections();
      acquirer.close();
    }
  });
});

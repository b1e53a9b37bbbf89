// Review finding: one merchant answering with a NUL byte made PostgreSQL refuse the whole batch of
// attempts it was recorded with, so every notification of that batch was sent again and again.
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { startGateway, type TestGateway } from '../helpers/gateway.ts';
import { ACK, startReceiver, waitFor } from '../helpers/receiver.ts';
import { authenticate, snapCall } from '../helpers/snap.ts';
import type { StoreUnderTest } from '../helpers/store-under-test.ts';

export function hostileAnswerSuite(under: StoreUnderTest): void {
  describe(`a merchant answering with bytes no column can hold (${under.name})`, () => {
    let gw: TestGateway;
    let cleanup: () => Promise<void>;
    before(async () => {
      const opened = await under.open();
      cleanup = opened.cleanup;
      gw = await startGateway({
        dispatch: true,
        env: { SNAPGATE_RETRY_SCHEDULE: '0s,1s,1h' },
        ...(opened.store ? { store: opened.store } : {}),
      });
    });
    after(async () => {
      await gw.close();
      await cleanup();
    });

    it('records its attempt with the text made safe, and delivers the other merchant’s callback once', async () => {
      const bad = await startReceiver((_req, res) => {
        // A raw NUL byte in the answer: PostgreSQL cannot store it in a text column.
        res.writeHead(400, { 'content-type': 'application/json' }).end(Buffer.from('{"x":"a\u0000b"}'));
      });
      const good = await startReceiver((_req, res) => {
        res.writeHead(200, { 'content-type': 'application/json' }).end(ACK);
      });
      try {
        const pay = async (baseUrl: string, ref: string) => {
          const m = await gw.createMerchant({ callbackBaseUrl: baseUrl });
          const c = await authenticate(gw.url, m);
          const qr = await snapCall(gw.url, c, '/api/snap/v1.0/qr/qr-mpm-generate', {
            partnerReferenceNo: ref,
            amount: { value: '1.00', currency: 'IDR' },
          });
          assert.equal((await gw.admin('POST', `/sandbox/qris/${qr.body.referenceNo}/pay`, {})).status, 200);
          return qr.body.referenceNo as string;
        };
        const badRef = await pay(bad.baseUrl, 'HOSTILE-1');
        const goodRef = await pay(good.baseUrl, 'HONEST-1');
        const noteOf = async (ref: string) =>
          (await gw.admin('GET', `/notifications?referenceNo=${ref}`)).body.items[0];
        await waitFor(
          'the honest callback delivered',
          async () => (await noteOf(goodRef))?.state === 'delivered',
          15_000,
        );
        const badNote = await waitFor(
          'the hostile answer recorded',
          async () => {
            const n = await noteOf(badRef);
            return n && n.attemptCount >= 1 ? n : undefined;
          },
          15_000,
        );
        const shown = (await gw.admin('GET', `/notifications/${badNote.id}`)).body;
        assert.equal(shown.attempts[0].responseStatus, 400);
        assert.match(shown.attempts[0].responseBody, /a\ufffdb/);
        await new Promise((resolve) => setTimeout(resolve, 300));
        assert.equal(good.received.length, 1, 'the honest merchant heard once');
      } finally {
        await bad.close();
        await good.close();
      }
    });
  });
}

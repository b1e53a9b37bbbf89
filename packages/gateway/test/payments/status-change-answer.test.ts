// docs/adr/0009-sqlite-writer-thread.md: on the embedded store, the writer thread answers a status
// change with whether it applied and whether its notification was claimed; the changer answers the
// transaction as the change makes it. That answer must be the stored row, field for field, and the
// claimed notification the stored one.
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import type { TransactionRecord } from '../../src/records/records.ts';
import { startGateway, type TestGateway } from '../helpers/gateway.ts';
import { authenticate, type SnapCaller, snapCall } from '../helpers/snap.ts';

const API = '/api/snap/v1.0';

describe('a status change answered from the changer (SQLite writer thread)', () => {
  let gw: TestGateway;
  let c: SnapCaller;
  let n = 0;
  before(async () => {
    gw = await startGateway({ env: { SNAPGATE_RATE_LIMIT: 'off' } });
    assert.equal(gw.gateway.store.kind, 'sqlite');
    c = await authenticate(gw.url, await gw.createMerchant({ fees: { qris: { percent: '0.70' } } }));
  });
  after(() => gw.close());

  const stored = async (referenceNo: string) => (await gw.store.findTransaction(referenceNo)) as TransactionRecord;

  it('answers the row as stored for each change of a QRIS: pending, then paid with its payer and fee', async () => {
    const r = await snapCall(gw.url, c, `${API}/qr/qr-mpm-generate`, {
      partnerReferenceNo: `ANSWER-${++n}`,
      amount: { value: '12345.00', currency: 'IDR' },
      merchantId: 'STORE-7',
    });
    assert.equal(r.status, 200, r.text);
    const ref = r.body.referenceNo as string;
    const at = Date.now();
    const pending = await gw.gateway.changer.change(await stored(ref), { to: '03', reason: 'pending' }, at);
    assert.deepEqual(pending, await stored(ref));
    const paid = await gw.gateway.changer.change(
      pending,
      {
        to: '00',
        providerId: (await gw.store.getSetting('sandbox_acquirer_provider_id')) as string,
        patch: (t) => ({
          paidAmount: t.amount,
          paidAt: at + 1,
          details: { ...t.details, payer: { payerName: 'SITI', payerIssuer: '93600014', payerRefId: '1' } },
        }),
      },
      at + 1,
    );
    assert.equal(paid.feeAmount, '86.00');
    assert.deepEqual(paid, await stored(ref));
    const [, notification] = await gw.store.notificationsOf(ref);
    assert.ok(notification);
    assert.equal(notification.latestStatus, '00');
    assert.equal(notification.txnSeq, paid.seq);
  });

  it('applies a change asked on a stale copy to the row as it is now, and answers that row', async () => {
    const r = await snapCall(gw.url, c, `${API}/qr/qr-mpm-generate`, {
      partnerReferenceNo: `ANSWER-${++n}`,
      amount: { value: '1000.00', currency: 'IDR' },
    });
    const ref = r.body.referenceNo as string;
    const first = await stored(ref);
    await gw.gateway.changer.change(first, { to: '03' }, Date.now());
    const before = await gw.store.statusHistory(ref);
    // A stale copy: the writer finds another seq, so the changer reads the row again and applies it there.
    const again = await gw.gateway.changer.change(first, { to: '06', statusDesc: 'Failed' }, Date.now());
    assert.deepEqual(again, await stored(ref));
    assert.equal(again.seq, first.seq + 2);
    assert.equal((await gw.store.statusHistory(ref)).length, before.length + 1);
  });
});

describe('a status change answered from the changer: its notification claimed at birth', () => {
  it('answers the claimed notification as stored, and refuses a post-image that is not the change’s', async () => {
    const gw = await startGateway({ env: { SNAPGATE_RATE_LIMIT: 'off' } });
    try {
      const c = await authenticate(gw.url, await gw.createMerchant());
      const r = await snapCall(gw.url, c, `${API}/qr/qr-mpm-generate`, {
        partnerReferenceNo: 'ANSWER-CLAIMED',
        amount: { value: '5000.00', currency: 'IDR' },
      });
      const txn = (await gw.store.findTransaction(r.body.referenceNo)) as TransactionRecord;
      const at = Date.now();
      const next: TransactionRecord = { ...txn, status: '03', statusDesc: 'Pending', seq: txn.seq + 1, updatedAt: at };
      const change = {
        referenceNo: txn.referenceNo,
        expectedSeq: txn.seq,
        status: '03' as const,
        statusDesc: 'Pending',
        reason: 'test',
        at,
        patch: {},
        notification: {
          id: '20261129000000000001',
          body: '{"latestTransactionStatus":"03"}',
          nextAttemptAt: at,
          requestId: 'req-1',
          claim: { workerId: 'worker-1', leaseUntil: at + 30_000 },
        },
      };
      await assert.rejects(gw.store.changeStatus({ ...change, next: { ...next, seq: txn.seq + 2 } }), TypeError);
      const changed = await gw.store.changeStatus({ ...change, next });
      assert.ok(changed?.claimed, 'claimed at birth: no other undelivered notification');
      assert.deepEqual(changed.claimed, await gw.store.findNotification('20261129000000000001'));
      assert.deepEqual(changed.txn, await gw.store.findTransaction(txn.referenceNo));
      // The same seq again: another change got there first, nothing is answered or written.
      assert.equal(await gw.store.changeStatus({ ...change, notification: undefined, next }), undefined);
      assert.equal((await gw.store.notificationsOf(txn.referenceNo)).length, 1);
    } finally {
      await gw.close();
    }
  });
});

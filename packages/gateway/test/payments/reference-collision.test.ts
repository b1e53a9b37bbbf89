import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import type { TransactionRecord } from '../../src/records/records.ts';
import type { Store } from '../../src/store/store.ts';
import { startGateway, type TestGateway } from '../helpers/gateway.ts';
import { authenticate, type SnapCaller, snapCall } from '../helpers/snap.ts';

// referenceNo is the Jakarta date, the millisecond of the day and a counter that starts at random in
// each process, so two instances can draw the same one. When a new transaction draws one that is
// already taken, the database refuses it (a real UNIQUE violation here: another transaction holding
// that very reference is written just before) and the service draws again, once; the caller
// never sees the collision.
describe('a drawn referenceNo that is already taken is drawn again', () => {
  let gw: TestGateway;
  let c: SnapCaller;
  const taken: string[] = [];
  let armCollision: () => void = () => undefined;
  before(async () => {
    gw = await startGateway({ env: { SNAPGATE_RATE_LIMIT: 'off' } });
    c = await authenticate(gw.url, await gw.createMerchant());
    const store = gw.store as Store;
    const insert = store.insertTransaction.bind(store);
    let collide = false;
    store.insertTransaction = async (txn, idempotency) => {
      if (collide) {
        collide = false;
        // Another transaction (same merchant, another partner reference) already holds this referenceNo.
        const decoy: TransactionRecord = {
          ...txn,
          partnerReferenceNo: `decoy-${txn.partnerReferenceNo}`,
          virtualAccountNo: null,
        };
        await insert(decoy);
        taken.push(txn.referenceNo);
      }
      return insert(txn, idempotency);
    };
    armCollision = () => {
      collide = true;
    };
  });
  after(() => gw.close());

  it('QRIS generate answers 2004700 with a fresh referenceNo', async () => {
    armCollision();
    const r = await snapCall(gw.url, c, '/api/snap/v1.0/qr/qr-mpm-generate', {
      partnerReferenceNo: `col-q-${Date.now()}`,
      amount: { value: '10000.00', currency: 'IDR' },
    });
    assert.equal(r.status, 200, r.text);
    assert.equal(r.body.responseCode, '2004700');
    const clash = taken.at(-1) as string;
    assert.notEqual(r.body.referenceNo, clash);
    assert.ok(await gw.store.findTransaction(r.body.referenceNo));
  });

  it('VA create answers 2002700 with a fresh referenceNo and the VA number it allocated', async () => {
    armCollision();
    const trxId = `col-v-${Date.now()}`;
    const r = await snapCall(gw.url, c, '/api/snap/v1.0/transfer-va/create-va', {
      virtualAccountName: 'Budi Santoso',
      trxId,
      totalAmount: { value: '150000.00', currency: 'IDR' },
    });
    assert.equal(r.status, 200, r.text);
    assert.equal(r.body.responseCode, '2002700');
    const clash = taken.at(-1) as string;
    const byVa = await gw.store.findTransactionByVirtualAccountNo(r.body.virtualAccountData.virtualAccountNo);
    assert.ok(byVa);
    assert.notEqual(byVa.referenceNo, clash);
    assert.equal(byVa.partnerReferenceNo, trxId);
  });
});

// A notification id is the millisecond and 7 digits; two instances of one database may draw the
// same one. The database refuses the second (a real UNIQUE violation: the change is made to reuse
// an id already stored) and the status changer draws again: the payment is not lost.
describe('a notification id that is already taken is drawn again', () => {
  let gw: TestGateway;
  let c: SnapCaller;
  before(async () => {
    gw = await startGateway({ env: { SNAPGATE_RATE_LIMIT: 'off' } });
    c = await authenticate(gw.url, await gw.createMerchant());
  });
  after(() => gw.close());

  const generate = async () => {
    const r = await snapCall(gw.url, c, '/api/snap/v1.0/qr/qr-mpm-generate', {
      partnerReferenceNo: `col-n-${Date.now()}-${Math.random()}`,
      amount: { value: '10000.00', currency: 'IDR' },
    });
    assert.equal(r.status, 200, r.text);
    return r.body.referenceNo as string;
  };

  it('the payment commits with its notification under a fresh id', async () => {
    const first = await generate();
    assert.equal((await gw.admin('POST', `/sandbox/qris/${first}/pay`, {})).status, 200);
    const [taken] = await gw.store.notificationsOf(first);
    assert.ok(taken);

    const second = await generate();
    const store = gw.store as Store;
    const change = store.changeStatus.bind(store);
    let reused = 0;
    store.changeStatus = async (c) => {
      if (reused === 0 && c.notification) {
        reused++;
        return change({ ...c, notification: { ...c.notification, id: taken.id } });
      }
      return change(c);
    };
    try {
      const paid = await gw.admin('POST', `/sandbox/qris/${second}/pay`, {});
      assert.equal(paid.status, 200, JSON.stringify(paid.body));
    } finally {
      store.changeStatus = change;
    }
    assert.equal(reused, 1);
    assert.equal((await gw.store.findTransaction(second))?.status, '00');
    const notes = await gw.store.notificationsOf(second);
    assert.equal(notes.length, 1);
    assert.notEqual(notes[0]?.id, taken.id);
    assert.equal(notes[0]?.latestStatus, '00');
  });
});

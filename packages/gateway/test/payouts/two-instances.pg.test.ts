// Money out with two gateway instances on one PostgreSQL database (docs/payouts.md): payments of one
// merchant through both while both settle it are each settled once (its balance spread over stripes,
// ADR 0015), a settlement paid through the bank from both at once is paid once, and disbursements
// sent through both at once never spend a rupiah twice. Each instance is a real gateway over HTTP; the sandbox bank counts
// the transfers it takes.
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { toMinorUnits } from '@snapgate/snap';
import pg from 'pg';
import { PostgresStore } from '../../src/store/postgres/postgres-store.ts';
import { startGateway, type TestGateway } from '../helpers/gateway.ts';
import { createTestDatabase } from '../helpers/postgres.ts';
import { authenticate, snapCall } from '../helpers/snap.ts';

const API = '/api/snap/v1.0';
const idr = (value: string) => ({ value, currency: 'IDR' });
let seq = 0;

describe('money out on two instances sharing PostgreSQL', () => {
  let a: TestGateway;
  let b: TestGateway;
  let drop: () => Promise<void>;
  let url: string;

  before(async () => {
    const db = await createTestDatabase();
    drop = db.drop;
    url = db.url;
    const open = async () => {
      const store = new PostgresStore({ connectionString: db.url });
      await store.migrate();
      return store;
    };
    a = await startGateway({ store: await open() });
    b = await startGateway({ store: await open() });
  });
  after(async () => {
    await a.close();
    await b.close();
    await drop();
  });

  /** A merchant (made through `a`) with a paid QRIS of `amount`, its account verified. */
  async function funded(amount: string, settings: Record<string, unknown> = {}) {
    const m = await a.createMerchant({ fees: { qris: { percent: '0.70' } }, ...settings });
    const caller = await authenticate(a.url, m);
    const g = await snapCall(a.url, caller, `${API}/qr/qr-mpm-generate`, {
      partnerReferenceNo: `TWO-${++seq}`,
      amount: idr(amount),
    });
    assert.equal((await a.admin('POST', `/sandbox/qris/${g.body.referenceNo}/pay`, {})).status, 200);
    return m;
  }

  it('takes every payment into exactly one settlement while both instances pay one merchant and settle it', async () => {
    const m = await a.createMerchant({ fees: { qris: { percent: '0.70' } } });
    const caller = await authenticate(a.url, m);
    const qris: string[] = [];
    for (let i = 0; i < 30; i++) {
      const g = await snapCall(a.url, caller, `${API}/qr/qr-mpm-generate`, {
        partnerReferenceNo: `TWO-P-${++seq}`,
        amount: idr(`${1000 + i}.00`),
      });
      assert.equal(g.status, 200, g.text);
      qris.push(g.body.referenceNo);
    }
    // Paid through both instances, while both settle the merchant again and again.
    const paying = qris.map((ref, i) => (i % 2 === 0 ? a : b).admin('POST', `/sandbox/qris/${ref}/pay`, {}));
    const settling = Array.from({ length: 6 }, (_, i) =>
      (i % 2 === 0 ? b : a).admin('POST', '/settlements', { merchantId: m.id }),
    );
    for (const r of await Promise.all(paying)) assert.equal(r.status, 200, JSON.stringify(r.body));
    for (const r of await Promise.all(settling)) assert.equal(r.status, 201, JSON.stringify(r.body));
    const last = await a.admin('POST', '/settlements', { merchantId: m.id });
    assert.equal(last.status, 201);
    // Every payment entry is in exactly one settlement, and the settlements hold all that is owed.
    const settlements = (await b.admin('GET', `/settlements?merchantId=${m.id}`)).body.items as Array<{
      id: string;
      count: number;
      net: string;
    }>;
    assert.equal(
      settlements.reduce((n, s) => n + s.count, 0),
      30,
      'each payment in one settlement',
    );
    const taken = new Set<string>();
    for (const s of settlements) {
      for (const e of (await a.admin('GET', `/settlements/${s.id}`)).body.entries as Array<{ id: string }>) {
        assert.ok(!taken.has(e.id), `entry ${e.id} in two settlements`);
        taken.add(e.id);
      }
    }
    const balance = (await b.admin('GET', `/merchants/${m.id}/balance`)).body;
    const nets = settlements.reduce((sum, s) => sum + toMinorUnits(s.net), 0n);
    assert.deepEqual([balance.pending, toMinorUnits(balance.settling)], ['0.00', nets]);
    assert.deepEqual((await a.admin('GET', '/ledger/verify')).body.problems, []);
    assert.deepEqual((await b.admin('GET', '/ledger/verify?full=true')).body.problems, []);
  });

  it("spreads one merchant's payments over stripes of its balance, and folds them when it settles", async () => {
    const m = await a.createMerchant({ fees: { qris: { percent: '0.70' } } });
    const caller = await authenticate(a.url, m);
    const refs: string[] = [];
    for (let i = 0; i < 20; i++) {
      const g = await snapCall(a.url, caller, `${API}/qr/qr-mpm-generate`, {
        partnerReferenceNo: `TWO-S-${++seq}`,
        amount: idr('10000.00'),
      });
      refs.push(g.body.referenceNo);
    }
    const paid = await Promise.all(refs.map((ref, i) => (i % 2 ? a : b).admin('POST', `/sandbox/qris/${ref}/pay`, {})));
    for (const r of paid) assert.equal(r.status, 200, JSON.stringify(r.body));
    const client = new pg.Client({ connectionString: url });
    await client.connect();
    try {
      const stripes = async () =>
        (
          await client.query('SELECT stripe FROM merchant_unsettled WHERE merchant_id = $1 ORDER BY stripe', [m.id])
        ).rows.map((r) => Number(r.stripe));
      // Payment entries move stripe (entry id mod 16): 20 of them fill most stripes.
      const expected = (
        await client.query(
          `SELECT DISTINCT id % 16 AS stripe FROM ledger_entries WHERE merchant_id = $1 AND kind = 'payment' ORDER BY 1`,
          [m.id],
        )
      ).rows.map((r) => Number(r.stripe));
      assert.ok(expected.length > 1);
      assert.deepEqual(await stripes(), expected);
      const balance = (await b.admin('GET', `/merchants/${m.id}/balance`)).body;
      assert.deepEqual([balance.pending, balance.fees], ['198600.00', '1400.00'], '20 × (10,000.00 − 70.00)');
      const settled = await a.admin('POST', '/settlements', { merchantId: m.id });
      assert.equal(settled.status, 201, JSON.stringify(settled.body));
      assert.deepEqual(await stripes(), [0], 'folded into stripe 0');
      const after = (await b.admin('GET', `/merchants/${m.id}/balance`)).body;
      assert.deepEqual([after.pending, after.settling, after.fees], ['0.00', '198600.00', '1400.00']);
      assert.deepEqual((await a.admin('GET', '/ledger/verify?full=true')).body.problems, []);
    } finally {
      await client.end();
    }
  });

  it('pays a settlement asked from both instances at once exactly once', async () => {
    const m = await funded('100000.00', {
      payoutAccount: { bankCode: '014', accountNo: '4400001234', accountName: 'SANDBOX 1234' },
    });
    const s = (await a.admin('POST', '/settlements', { merchantId: m.id })).body.items[0];
    const both = await Promise.all([
      a.admin('POST', `/settlements/${s.id}/payout`, {}),
      b.admin('POST', `/settlements/${s.id}/payout`, {}),
    ]);
    assert.deepEqual(both.map((r) => r.status).sort(), [202, 409], JSON.stringify(both.map((r) => r.body)));
    const payouts = (await b.admin('GET', `/payouts?merchantId=${m.id}`)).body.items;
    assert.equal(payouts.length, 1);
    assert.equal(
      (await a.store.findSandboxTransfer({ partnerReferenceNo: payouts[0].partnerReferenceNo }))?.status,
      '00',
    );
    assert.equal((await b.admin('GET', `/settlements/${s.id}`)).body.status, 'paid');
    assert.deepEqual((await a.admin('GET', '/ledger/verify')).body.problems, []);
  });

  it('lets 20 disbursements through both instances race one balance: never below zero', async () => {
    const m = await funded('100000.00', { limits: { disbursementDaily: '1000000.00' } });
    // 99,300.00 pending: nine of 10,000.00 fit; a settlement made meanwhile takes what is left.
    const callers = [await authenticate(a.url, m), await authenticate(b.url, m)];
    const sent = Array.from({ length: 20 }, (_, i) => {
      const on = i % 2 === 0 ? a : b;
      return snapCall(on.url, callers[i % 2] as (typeof callers)[number], `${API}/transfer-interbank`, {
        partnerReferenceNo: `TWO-D-${++seq}`,
        amount: idr('10000.00'),
        beneficiaryAccountName: 'Toko',
        beneficiaryAccountNo: '4400005678',
        beneficiaryBankCode: '014',
      });
    });
    const settling = b.admin('POST', '/settlements', { merchantId: m.id });
    const answers = await Promise.all(sent);
    const settled = await settling;
    assert.equal(settled.status, 201, JSON.stringify(settled.body));
    const codes = answers.map((r) => r.body.responseCode as string);
    const paid = codes.filter((c) => c === '2001800').length;
    assert.equal(paid + codes.filter((c) => c === '4031814').length, 20, codes.join(' '));
    // What was sent and what was settled together are at most what was collected, and all of it.
    const net = settled.body.items.reduce((sum: bigint, s: { net: string }) => sum + toMinorUnits(s.net), 0n);
    const balance = (await a.admin('GET', `/merchants/${m.id}/balance`)).body;
    const pending = toMinorUnits(balance.pending.replace(/^-/, ''));
    assert.ok(!balance.pending.startsWith('-'), JSON.stringify(balance));
    assert.equal(BigInt(paid) * toMinorUnits('10000.00') + net + pending, toMinorUnits('99300.00'));
    assert.deepEqual((await b.admin('GET', '/ledger/verify')).body.problems, []);
  });
});

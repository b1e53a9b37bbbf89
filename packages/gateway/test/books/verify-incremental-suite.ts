// docs/books.md#verification: verification that keeps up. By default it reads what was written since
// the last clean run (its checkpoint), finds a problem there, and keeps where it got to only when
// clean; `full=true` reads the whole journal and finds what no checkpoint can carry. Both stores.
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { createLedgerService } from '../../src/books/ledger-service.ts';
import type { TestGateway } from '../helpers/gateway.ts';
import { gatewayWithRawSql, type RawSql } from '../helpers/raw-sql.ts';
import { authenticate, type SnapCaller, snapCall } from '../helpers/snap.ts';

const API = '/api/snap/v1.0';
const idr = (value: string) => ({ value, currency: 'IDR' });
let seq = 0;

export function verifyIncrementalSuite(engine: 'SQLite' | 'PostgreSQL'): void {
  describe(`incremental verification (${engine})`, () => {
    let gw: TestGateway;
    let raw: RawSql;
    let close = async () => undefined as unknown;
    before(async () => {
      ({ gw, raw, close } = await gatewayWithRawSql(engine));
    });
    after(() => close());

    async function paid(caller: SnapCaller): Promise<string> {
      const g = await snapCall(gw.url, caller, `${API}/qr/qr-mpm-generate`, {
        partnerReferenceNo: `VERIFY-${++seq}`,
        amount: idr('10000.00'),
      });
      assert.equal(g.status, 200, g.text);
      assert.equal((await gw.admin('POST', `/sandbox/qris/${g.body.referenceNo}/pay`, {})).status, 200);
      return g.body.referenceNo;
    }

    it('reads only what is new, finds a problem there, and keeps a checkpoint only when clean', async () => {
      // Verified two minutes from now: every entry is old enough to be kept in a checkpoint.
      const later = createLedgerService({ store: gw.store, clock: { now: () => Date.now() + 120_000 } });
      const m = await gw.createMerchant({ fees: { qris: { percent: '0.70' } } });
      const caller = await authenticate(gw.url, m);
      await paid(caller);
      await paid(caller);
      const v1 = await later.verify();
      assert.deepEqual([v1.ok, v1.mode, v1.read, v1.entries, v1.problems], [true, 'incremental', 2, 2, []]);
      const v2 = await later.verify();
      assert.deepEqual([v2.ok, v2.read, v2.entries], [true, 0, 2], 'nothing new: nothing read');
      await paid(caller);
      const v3 = await later.verify();
      assert.deepEqual([v3.ok, v3.read, v3.entries], [true, 1, 3]);

      // Running totals that drifted from the entries are found, and the checkpoint stays.
      // (One row of its running totals: on PostgreSQL a merchant's totals are several stripes.)
      const [row] = await raw.all('SELECT stripe FROM merchant_unsettled WHERE merchant_id = ? ORDER BY stripe', [
        m.id,
      ]);
      const drift = (by: number) =>
        raw.exec('UPDATE merchant_unsettled SET pending_sen = pending_sen + ? WHERE merchant_id = ? AND stripe = ?', [
          by,
          m.id,
          row?.stripe,
        ]);
      await drift(1);
      await paid(caller);
      const v4 = await later.verify();
      assert.equal(v4.ok, false);
      assert.deepEqual(
        v4.problems.map((p) => [p.type, p.merchantId]),
        [['running_totals', m.id]],
      );
      assert.equal((await later.verify()).read, 1, 'not kept: the same entry is read again');
      await drift(-1);
      const v6 = await later.verify();
      assert.deepEqual([v6.ok, v6.read, v6.entries], [true, 1, 4]);

      // A forged entry is new: found.
      await raw.exec(
        `INSERT INTO ledger_entries (at, kind, cause, merchant_id, provider_id, reference_no, amount_sen, fee_sen)
         VALUES (?, 'payment', 'payment:FORGED-V', ?, 'p', 'FORGED-V', 100, 0)`,
        [Date.now(), m.id],
      );
      const v7 = await later.verify();
      assert.ok(
        v7.problems.some((p) => p.type === 'no_cause'),
        JSON.stringify(v7.problems),
      );
      await raw.exec(`DELETE FROM ledger_entries WHERE cause = 'payment:FORGED-V'`).catch(() => undefined);
    });

    it('runs the full verification in the background, asked about until it is done', async () => {
      const started = await gw.admin('POST', '/ledger/verifications', {});
      assert.equal(started.status, 202, JSON.stringify(started.body));
      assert.match(started.body.id, /^ver_[0-9a-f]{32}$/);
      const deadline = Date.now() + 30_000;
      let job = started.body;
      while (job.state === 'running') {
        assert.ok(Date.now() < deadline, 'the verification ends');
        await new Promise((r) => setImmediate(r));
        job = (await gw.admin('GET', `/ledger/verifications/${started.body.id}`)).body;
      }
      assert.equal(job.state, 'done', JSON.stringify(job));
      assert.equal(job.result.mode, 'full');
      assert.equal(job.entriesRead, job.result.entries);
      assert.ok(job.finishedAt);
      // The first test's forged entry is in the journal for good: the full check names it.
      assert.ok(
        job.result.problems.some((p: { type: string }) => p.type === 'no_cause'),
        JSON.stringify(job.result),
      );
      assert.equal((await gw.admin('GET', '/ledger/verifications/ver_unknown')).status, 404);
      // Asked twice at once: the running job is answered, not a second one started.
      const service = createLedgerService({ store: gw.store });
      const [a, b] = [service.startFull(), service.startFull()];
      assert.equal(b.id, a.id);
    });

    it('leaves to the full verification what is older than the checkpoint (GET /ledger/verify?full=true)', async () => {
      const later = createLedgerService({ store: gw.store, clock: { now: () => Date.now() + 120_000 } });
      const m = await gw.createMerchant();
      const caller = await authenticate(gw.url, m);
      const ref = await paid(caller);
      // The first test's forged entry stays in the journal (append-only): the full check names it.
      await later.verify();
      await raw.exec('UPDATE transactions SET payment_entry_id = NULL WHERE reference_no = ?', [ref]);
      const full = await gw.admin('GET', '/ledger/verify?full=true');
      assert.equal(full.status, 200);
      assert.equal(full.body.mode, 'full');
      assert.ok(
        full.body.problems.some(
          (p: { type: string; message: string }) => p.type === 'payment_mismatch' && p.message.startsWith(ref),
        ),
        JSON.stringify(full.body.problems),
      );
      assert.equal((await gw.admin('GET', '/ledger/verify?full=maybe')).status, 400);
    });

    it('finds a transaction paid since the checkpoint without its entry, in pages of the paid order', async () => {
      // Ten minutes ahead: after the other tests' checkpoints, whatever they kept.
      const ahead = 600_000;
      const muchLater = createLedgerService({ store: gw.store, clock: { now: () => Date.now() + ahead } });
      const m = await gw.createMerchant();
      const caller = await authenticate(gw.url, m);
      const refs: string[] = [];
      for (let i = 0; i < 3; i++) {
        const g = await snapCall(gw.url, caller, `${API}/qr/qr-mpm-generate`, {
          partnerReferenceNo: `VERIFY-UNPOSTED-${++seq}`,
          amount: idr('10000.00'),
        });
        assert.equal(g.status, 200, g.text);
        refs.push(g.body.referenceNo);
      }
      // Paid at one instant (after the checkpoint), with no payment entry: as a bug would leave them.
      const paidAt = Date.now() + ahead - 30_000;
      const markPaid = (status: string, at: number | null) =>
        raw.exec(
          `UPDATE transactions SET status = ?, paid_amount = ${at === null ? 'NULL' : "'10000.00'"}, paid_at = ?
           WHERE reference_no IN (?, ?, ?)`,
          [status, at, ...refs],
        );
      await markPaid('00', paidAt);
      try {
        const pages: string[][] = [];
        let cursor: string | undefined;
        do {
          const page = await gw.store.paidTransactionsSince(paidAt, { limit: 2, cursor });
          pages.push(page.items.map((t) => t.referenceNo));
          cursor = page.nextCursor ?? undefined;
        } while (cursor !== undefined);
        assert.deepEqual(pages, [[...refs].sort().slice(0, 2), [...refs].sort().slice(2)], 'each once, in order');
        assert.deepEqual((await gw.store.paidTransactionsSince(paidAt + 1, { limit: 2 })).items, []);
        const v = await muchLater.verify();
        assert.equal(v.ok, false);
        // (The earlier tests' forged entry and unlinked transaction are read again too: they keep
        // any checkpoint from moving past them.)
        assert.deepEqual(
          v.problems
            .filter((p) => p.referenceNo !== undefined && refs.includes(p.referenceNo))
            .map((p) => [p.type, p.referenceNo])
            .sort(),
          [...refs].sort().map((r) => ['missing_payment', r]),
        );
      } finally {
        await markPaid('01', null);
      }
    });

    it('finds, in the full verification, an entry missing from the unsettled queue or settled twice', async () => {
      const m = await gw.createMerchant();
      const caller = await authenticate(gw.url, m);
      await paid(caller);
      await paid(caller);
      const queueProblems = async () => {
        const full = await gw.admin('GET', '/ledger/verify?full=true');
        assert.equal(full.status, 200);
        return (full.body.problems as Array<{ type: string; merchantId?: string; entryId?: string; message: string }>)
          .filter((p) => p.merchantId === m.id)
          .map((p) => [p.type, p.entryId, p.message.split(': ')[1]]);
      };
      assert.deepEqual(await queueProblems(), []);
      const [first, second] = (await raw.all(
        'SELECT entry_id, merchant_id, at FROM unsettled_entries WHERE merchant_id = ? ORDER BY entry_id',
        [m.id],
      )) as Array<{ entry_id: number; merchant_id: string; at: number }>;
      assert.ok(first && second);
      // Lost from the queue: no settlement would ever take it.
      await raw.exec('DELETE FROM unsettled_entries WHERE entry_id = ?', [first.entry_id]);
      assert.deepEqual(await queueProblems(), [
        [
          'unsettled_queue',
          String(first.entry_id),
          'in no settlement and not in the unsettled queue (no settlement would take it)',
        ],
      ]);
      await raw.exec('INSERT INTO unsettled_entries (entry_id, merchant_id, at) VALUES (?, ?, ?)', [
        first.entry_id,
        first.merchant_id,
        first.at,
      ]);
      assert.deepEqual(await queueProblems(), []);
      // Settled, and put back in the queue: the next settlement would take it again.
      const run = await gw.admin('POST', '/settlements', { merchantId: m.id });
      assert.equal(run.status, 201, JSON.stringify(run.body));
      await raw.exec('INSERT INTO unsettled_entries (entry_id, merchant_id, at) VALUES (?, ?, ?)', [
        second.entry_id,
        second.merchant_id,
        second.at,
      ]);
      assert.deepEqual(await queueProblems(), [
        ['unsettled_queue', String(second.entry_id), 'in a settlement and still in the unsettled queue'],
      ]);
      await raw.exec('DELETE FROM unsettled_entries WHERE entry_id = ?', [second.entry_id]);
      assert.deepEqual(await queueProblems(), []);
    });
  });
}

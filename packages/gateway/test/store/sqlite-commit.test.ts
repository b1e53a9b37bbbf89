import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, describe, it } from 'node:test';
import Database from 'better-sqlite3';
import { UniqueViolation } from '../../src/records/records.ts';
import { SqliteStore } from '../../src/store/sqlite/sqlite-store.ts';
import { merchant, txn } from './contract.ts';

const dir = mkdtempSync(join(tmpdir(), 'snapgate-commit-'));
after(() => rmSync(dir, { recursive: true, force: true }));
let files = 0;
const file = () => join(dir, `db-${++files}.db`);

describe('SQLite settings', () => {
  it('a new database: 2 KiB pages, WAL, synchronous=FULL, a 64 MiB page cache', async () => {
    const store = new SqliteStore({ file: file() });
    try {
      assert.equal(store.db.pragma('page_size', { simple: true }), 2048);
      assert.equal(store.db.pragma('journal_mode', { simple: true }), 'wal');
      assert.equal(store.db.pragma('synchronous', { simple: true }), 2);
      assert.equal(store.db.pragma('cache_size', { simple: true }), -65536);
    } finally {
      await store.close();
    }
  });

  it('a database made with 4 KiB pages keeps them, and opens with synchronous=FULL', async () => {
    const f = file();
    const old = new Database(f);
    old.pragma('page_size = 4096');
    old.pragma('journal_mode = WAL');
    old.exec('CREATE TABLE t (x INTEGER)');
    old.close();
    const store = new SqliteStore({ file: f });
    try {
      assert.equal(store.db.pragma('page_size', { simple: true }), 4096);
      assert.equal(store.db.pragma('synchronous', { simple: true }), 2);
    } finally {
      await store.close();
    }
  });
});

describe('SQLite group commit: the writes of one event-loop turn share one transaction', () => {
  it('commits them together, each in its own savepoint: one refused write undoes only itself', async () => {
    const store = new SqliteStore({ file: file() });
    try {
      const m = merchant();
      await store.insertMerchant(m);
      const a = txn(m.id);
      await store.insertTransaction(a);
      const b = txn(m.id);
      const c = txn(m.id);
      const historyRows = () => (store.db.prepare('SELECT count(*) AS n FROM status_history').get() as { n: number }).n;
      const before = historyRows();
      // Three writes asked for in one turn: b, a again (refused: its referenceNo exists), c.
      const results = await Promise.allSettled([
        store.insertTransaction(b),
        store.insertTransaction({ ...a, partnerReferenceNo: 'another' }),
        store.insertTransaction(c),
      ]);
      assert.equal(results[0].status, 'fulfilled');
      assert.equal(results[1].status, 'rejected');
      assert.ok((results[1] as PromiseRejectedResult).reason instanceof UniqueViolation);
      assert.equal(results[2].status, 'fulfilled');
      assert.ok(await store.findTransaction(b.referenceNo));
      assert.ok(await store.findTransaction(c.referenceNo));
      assert.equal((await store.findTransaction(a.referenceNo))?.partnerReferenceNo, a.partnerReferenceNo);
      // b and c wrote their history rows in the shared transaction; the refused write left none.
      assert.equal(historyRows() - before, 2);
      assert.equal((await store.statusHistory(a.referenceNo)).length, 1);
    } finally {
      await store.close();
    }
  });

  it('a write asked for just before close still commits, and its caller is answered', async () => {
    const f = file();
    const store = new SqliteStore({ file: f });
    const m = merchant();
    await store.insertMerchant(m);
    const t = txn(m.id);
    const pending = store.insertTransaction(t);
    await store.close();
    await pending;
    const reopened = new SqliteStore({ file: f });
    try {
      assert.equal((await reopened.findTransaction(t.referenceNo))?.referenceNo, t.referenceNo);
    } finally {
      await reopened.close();
    }
  });

  it('an answer comes only after the COMMIT: another connection sees the row when the caller resumes', async () => {
    const f = file();
    const store = new SqliteStore({ file: f });
    const reader = new Database(f, { readonly: true });
    try {
      const m = merchant();
      await store.insertMerchant(m);
      const t = txn(m.id);
      await store.insertTransaction(t);
      const row = reader.prepare('SELECT reference_no FROM transactions WHERE reference_no = ?').get(t.referenceNo);
      assert.deepEqual(row, { reference_no: t.referenceNo });
    } finally {
      reader.close();
      await store.close();
    }
  });
});

describe('SQLite group commit when SQLite itself rolls the whole transaction back', () => {
  it('refuses every write of the batch and runs none after the failure on its own', async () => {
    const f = file();
    let failNext = false;
    let store: SqliteStore | undefined;
    store = new SqliteStore({
      file: f,
      faults: {
        afterStatusUpdate: () => {
          if (!failNext) return;
          failNext = false;
          // What SQLITE_FULL or SQLITE_IOERR do: the transaction is gone, not just the savepoint.
          store?.db.exec('ROLLBACK');
          throw new Error('database or disk is full');
        },
      },
    });
    try {
      const m = merchant();
      await store.insertMerchant(m);
      const first = txn(m.id);
      const failing = txn(m.id);
      const after = txn(m.id);
      await store.insertTransaction(failing);
      failNext = true;
      const change = {
        referenceNo: failing.referenceNo,
        expectedSeq: failing.seq,
        status: '00' as const,
        statusDesc: 'Success',
        reason: null,
        at: failing.createdAt + 1,
      };
      // One turn: a write before the failing change, the change, a write after it.
      const results = await Promise.allSettled([
        store.insertTransaction(first),
        store.changeStatus(change),
        store.insertTransaction(after),
      ]);
      assert.deepEqual(
        results.map((r) => r.status),
        ['rejected', 'rejected', 'rejected'],
      );
      assert.equal(await store.findTransaction(first.referenceNo), undefined);
      assert.equal(await store.findTransaction(after.referenceNo), undefined, 'not committed on its own');
      assert.equal((await store.findTransaction(failing.referenceNo))?.status, failing.status);
      assert.equal(store.db.inTransaction, false);
      // The store goes on working.
      await store.insertTransaction(after);
      assert.ok(await store.findTransaction(after.referenceNo));
    } finally {
      await store.close();
      store = undefined;
    }
  });
});

import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, describe, it } from 'node:test';
import { fileURLToPath } from 'node:url';
import { UniqueViolation } from '../../src/records/records.ts';
import { SqliteStore } from '../../src/store/sqlite/sqlite-store.ts';
import { type ThreadWriter, WriterLost } from '../../src/store/sqlite/sqlite-writer.ts';
import { merchant, txn } from './contract.ts';

const dir = mkdtempSync(join(tmpdir(), 'snapgate-writer-'));
after(() => rmSync(dir, { recursive: true, force: true }));
let files = 0;
const file = () => join(dir, `db-${++files}.db`);
/** How many times another connection committed since this connection last looked (SQLite's data_version). */
const dataVersion = (store: SqliteStore) => store.db.pragma('data_version', { simple: true }) as number;

describe('SQLite writer thread', () => {
  it('commits the hot writes on its own connection, answering after the commit', async () => {
    const store = new SqliteStore({ file: file() });
    try {
      assert.equal(store.writer.kind, 'thread');
      const m = merchant();
      await store.insertMerchant(m);
      const before = dataVersion(store);
      const t = txn(m.id);
      await store.insertTransaction(t);
      // data_version moves only for another connection's commit: the write was not made here.
      assert.ok(dataVersion(store) > before);
      assert.equal((await store.findTransaction(t.referenceNo))?.referenceNo, t.referenceNo);
      // A refused write comes back as the store's own error, its class kept across the thread.
      await assert.rejects(store.insertTransaction(t), UniqueViolation);
    } finally {
      await store.close();
    }
  });

  it('tells every commit observer of each group commit once: its writes and its duration', async () => {
    const store = new SqliteStore({ file: file() });
    try {
      const m = merchant();
      await store.insertMerchant(m);
      const first: Array<{ seconds: number; writes: number }> = [];
      const second: Array<{ seconds: number; writes: number }> = [];
      store.observeCommits((c) => first.push(c));
      store.observeCommits((c) => second.push(c));
      // One turn of the event loop: the three go to the thread as one batch, committed together.
      await Promise.all([1, 2, 3].map(() => store.insertTransaction(txn(m.id))));
      assert.equal(first.length, 1, JSON.stringify(first));
      assert.equal(first[0]?.writes, 3);
      assert.ok((first[0]?.seconds ?? 0) > 0);
      assert.deepEqual(second, first, 'every observer hears the same commits');
      // An observer that throws fails nothing: the write is answered, the observers after it told.
      // (The search index's own commit may come in between: counted, not assumed absent.)
      store.observeCommits(() => {
        throw new Error('a broken metric');
      });
      const third: Array<{ seconds: number; writes: number }> = [];
      store.observeCommits((c) => third.push(c));
      const t = txn(m.id);
      await store.insertTransaction(t);
      assert.ok(await store.findTransaction(t.referenceNo));
      assert.ok(first.length >= 2);
      assert.ok(third.length >= 1);
      assert.deepEqual(second, first);
    } finally {
      await store.close();
    }
  });

  it('a write holding what cannot cross to the thread is refused alone; the others of its turn commit', async () => {
    const store = new SqliteStore({ file: file() });
    try {
      const m = merchant();
      await store.insertMerchant(m);
      const good = txn(m.id);
      const bad = txn(m.id);
      const uncloneable = {
        ...bad,
        details: { ...bad.details, additionalInfo: { hook: () => undefined } },
      } as typeof bad;
      const [a, b] = await Promise.allSettled([store.insertTransaction(good), store.insertTransaction(uncloneable)]);
      assert.equal(a.status, 'fulfilled');
      assert.equal(b.status, 'rejected');
      assert.ok(await store.findTransaction(good.referenceNo));
      assert.equal(await store.findTransaction(bad.referenceNo), undefined);
    } finally {
      await store.close();
    }
  });

  it('stays on the calling thread for :memory: and when asked', async () => {
    for (const store of [new SqliteStore({ file: ':memory:' }), new SqliteStore({ file: file(), writer: 'inline' })]) {
      try {
        assert.equal(store.writer.kind, 'inline');
        const m = merchant();
        await store.insertMerchant(m);
        const before = dataVersion(store);
        await store.insertTransaction(txn(m.id));
        assert.equal(dataVersion(store), before);
      } finally {
        await store.close();
      }
    }
  });

  it("an operator's write on the main connection while the writer commits a burst: both complete, none refused", async () => {
    const store = new SqliteStore({ file: file() });
    try {
      const m = merchant();
      await store.insertMerchant(m);
      const burst = Array.from({ length: 2000 }, () => store.insertTransaction(txn(m.id)));
      const renames = Array.from({ length: 50 }, (_, i) =>
        store.updateMerchant(m.id, { name: `name ${i}` }, Date.now()),
      );
      await Promise.all([...burst, ...renames]);
      assert.equal((await store.findMerchantById(m.id))?.name, 'name 49');
      const n = store.db.prepare('SELECT count(*) AS n FROM transactions WHERE merchant_id = ?').get(m.id) as {
        n: number;
      };
      assert.equal(n.n, 2000);
    } finally {
      await store.close();
    }
  });

  it('re-seals every secret while the writer commits a burst: no rotation is refused for the lock', async () => {
    const store = new SqliteStore({ file: file() });
    try {
      const m = merchant();
      await store.insertMerchant(m);
      // Payments keep arriving from 50 clients while the operator re-seals every secret, again and again.
      let isWriting = true;
      const payments = Promise.all(
        Array.from({ length: 50 }, async () => {
          while (isWriting) await store.insertTransaction(txn(m.id));
        }),
      );
      const changed: number[] = [];
      try {
        for (let i = 0; i < 200; i++) {
          await new Promise((resolve) => setImmediate(resolve));
          changed.push(await store.resealSecrets((stored) => `${stored}.`, new Set()));
        }
      } finally {
        isWriting = false;
        await payments;
      }
      assert.ok(changed.every((n) => n > 0));
    } finally {
      await store.close();
    }
  });

  it('a lost writer thread refuses every later write and tells its owner once', async () => {
    const lost: WriterLost[] = [];
    const store = new SqliteStore({ file: file(), onWriterLost: (e) => lost.push(e) });
    try {
      const m = merchant();
      await store.insertMerchant(m);
      await store.insertTransaction(txn(m.id));
      await (store.writer as ThreadWriter).worker.terminate();
      await assert.rejects(store.insertTransaction(txn(m.id)), WriterLost);
      await assert.rejects(store.insertTransaction(txn(m.id)), WriterLost);
      assert.equal(lost.length, 1);
      assert.match(lost[0]?.message ?? '', /SQLite writer thread stopped/);
    } finally {
      await store.close();
    }
  });

  it('by default, a process that loses its writer thread ends with code 1 and says why', async () => {
    const fixture = fileURLToPath(new URL('./fixtures/writer-lost.ts', import.meta.url));
    const child = spawn(process.execPath, ['--import', 'tsx', fixture, file()], { stdio: ['ignore', 'pipe', 'pipe'] });
    let out = '';
    let err = '';
    child.stdout.on('data', (c) => {
      out += String(c);
    });
    child.stderr.on('data', (c) => {
      err += String(c);
    });
    const code = await new Promise<number | null>((resolve) => child.on('exit', (c) => resolve(c)));
    assert.equal(out, 'written\n');
    assert.equal(code, 1);
    assert.match(
      err,
      /snapgate: the SQLite writer thread stopped \(exit code 1\); exiting so that a supervisor restarts the gateway/,
    );
  });
});

// What a status change writes (docs/benchmarks.md): SQLite pages per group commit, by b-tree, for
// changes to 00 with their notifications, without a ledger entry (the baseline) and with one, for
// references in the order they were created (as production draws them since 2026-11-29, and as
// bench:delivery makes them) and at random (as production's `yyMMdd` + 12 random digits were). Pages written are what each commit copies to the
// WAL and fsyncs, so unlike throughput on a shared machine they do not drift from run to run.
//
//   npm run bench:pages [-- --changes 20000 --batch 100]
import { randomInt } from 'node:crypto';
import { mkdtempSync, readFileSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { setImmediate as nextTurn } from 'node:timers/promises';
import { parseArgs } from 'node:util';
import { TRANSACTION_STATUS } from '@snapgate/snap';
import { newBillNumber, newReferenceNo } from '../src/payments/ids.ts';
import type { QrisTransaction } from '../src/records/records.ts';
import { SqliteStore } from '../src/store/sqlite/sqlite-store.ts';
import { benchMerchant, paymentChange } from './bench-kit.ts';

const { values } = parseArgs({
  options: { changes: { type: 'string', default: '20000' }, batch: { type: 'string', default: '100' } },
});
const CHANGES = Number(values.changes);
const BATCH = Number(values.batch);
/** Transactions in the database besides those paid, so every index has some depth. */
const BYSTANDERS = 2 * CHANGES;

const MERCHANT = benchMerchant('3f0e6a4c-8d1b-4c2e-9f7a-5b6c7d8e9f01');
const PROVIDER = '9b2d4e6f-1a3c-4b5d-8e7f-0a1b2c3d4e5f';

type Order = 'sequential' | 'random';

function transactions(order: Order, now: number): QrisTransaction[] {
  return Array.from({ length: CHANGES + BYSTANDERS }, (_, i) => ({
    referenceNo:
      order === 'sequential'
        ? newReferenceNo(now - CHANGES - BYSTANDERS + i)
        : `261126${String(randomInt(1e6)).padStart(6, '0')}${String(randomInt(1e6)).padStart(6, '0')}`,
    merchantId: MERCHANT.id,
    kind: 'qris',
    partnerReferenceNo: `order-${i}`,
    status: '01',
    statusDesc: TRANSACTION_STATUS['01'],
    seq: 1,
    amount: '150000.00',
    currency: 'IDR',
    paidAmount: null,
    refundedAmount: '0.00',
    feeAmount: '0.00',
    virtualAccountNo: null,
    billNumber: newBillNumber(),
    expiresAt: now + 3_600_000,
    paidAt: null,
    details: { qrContent: '00020101021226', terminalId: 'T001', storeId: 'S001' },
    createdAt: now,
    updatedAt: now,
  }));
}

interface Run {
  order: Order;
  ledger: boolean;
  pagesPerCommit: number;
  walBytesPerChange: number;
  byTree: Map<string, number>;
}

async function run(order: Order, ledger: boolean): Promise<Run> {
  const dir = mkdtempSync(join(tmpdir(), 'snapgate-pages-'));
  const file = join(dir, 'bench.db');
  // The commits on this connection, whose WAL checkpoints are turned off below: the writer thread's
  // own connection would checkpoint and restart the WAL mid-run (ADR 0009).
  const store = new SqliteStore({ file, writer: 'inline' });
  try {
    await store.insertMerchant(MERCHANT);
    const now = Date.now();
    const txns = transactions(order, now);
    const pending: Promise<void>[] = [];
    store.db.transaction(() => {
      for (const t of txns) pending.push(store.insertTransaction(t));
    })();
    await Promise.all(pending);
    store.db.pragma('wal_checkpoint(TRUNCATE)');
    store.db.pragma('wal_autocheckpoint = 0');
    // The first CHANGES created are paid; at random, in no order but the references'.
    const paid = txns.slice(0, CHANGES);
    for (let i = 0; i < paid.length; i += BATCH) {
      // One event-loop turn of changes: the store commits them as one group.
      await Promise.all(
        paid.slice(i, i + BATCH).map((t) => store.changeStatus(paymentChange(t, now, PROVIDER, ledger))),
      );
      await nextTurn();
    }
    // The WAL: a 32-byte header, then frames of a 24-byte header (page number, and the database
    // size on a commit's last frame) and the page.
    const wal = readFileSync(`${file}-wal`);
    const pageSize = wal.readUInt32BE(8);
    const owner = new Map<number, string>();
    for (const r of store.db.prepare('SELECT name, pageno FROM dbstat').all() as Array<{
      name: string;
      pageno: number;
    }>) {
      owner.set(r.pageno, r.name);
    }
    const byTree = new Map<string, number>();
    let commits = 0;
    let frames = 0;
    for (let off = 32; off + 24 + pageSize <= wal.length; off += 24 + pageSize) {
      frames++;
      if (wal.readUInt32BE(off + 4) !== 0) commits++;
      const tree = owner.get(wal.readUInt32BE(off)) ?? '(other)';
      byTree.set(tree, (byTree.get(tree) ?? 0) + 1);
    }
    for (const [k, v] of byTree) byTree.set(k, v / commits);
    return {
      order,
      ledger,
      pagesPerCommit: frames / commits,
      walBytesPerChange: statSync(`${file}-wal`).size / CHANGES,
      byTree,
    };
  } finally {
    await store.close();
    rmSync(dir, { recursive: true, force: true });
  }
}

const fmt = (n: number, digits = 1) => n.toLocaleString('en-US', { maximumFractionDigits: digits });
console.log(`${fmt(CHANGES, 0)} changes to 00 with their notifications, ${BATCH} per group commit, 2 KiB pages.\n`);
for (const order of ['sequential', 'random'] as const) {
  const base = await run(order, false);
  const books = await run(order, true);
  console.log(
    `References ${order === 'sequential' ? 'in creation order (as production draws them, one a millisecond)' : 'at random (as production drew them before 2026-11-29)'}:`,
  );
  console.log(`${'b-tree'.padEnd(36)}${'no ledger'.padStart(11)}${'ledger'.padStart(9)}`);
  const trees = [...new Set([...base.byTree.keys(), ...books.byTree.keys()])].sort(
    (a, b) => (books.byTree.get(b) ?? 0) - (books.byTree.get(a) ?? 0),
  );
  for (const t of trees) {
    console.log(
      `${t.padEnd(36)}${fmt(base.byTree.get(t) ?? 0).padStart(11)}${fmt(books.byTree.get(t) ?? 0).padStart(9)}`,
    );
  }
  console.log(
    `${'pages per commit'.padEnd(36)}${fmt(base.pagesPerCommit).padStart(11)}${fmt(books.pagesPerCommit).padStart(9)}`,
  );
  console.log(
    `${'WAL bytes per change'.padEnd(36)}${fmt(base.walBytesPerChange, 0).padStart(11)}${fmt(books.walBytesPerChange, 0).padStart(9)}`,
  );
  console.log(`the ledger's share: ${fmt((books.pagesPerCommit / base.pagesPerCommit - 1) * 100)} % more pages\n`);
}

// The books at scale (docs/benchmarks.md#the-books-at-scale): what the books' reads and a settlement
// cost with a small history and with a large one, on both stores, side by side with the way they
// were read before the running totals and the unsettled queue (ADR 0014).
//
//   npm run bench:books                          # 2,000,000 settled payments against 1,000
//   npm run bench:books -- --entries 200000      # a quicker large history
//   npm run bench:books -- --engines sqlite      # one store (sqlite, postgres)
//
// A history is written straight into the database (bulk SQL through the store's own triggers: its
// running totals and its queue move as for any payment), then settled by the store in one
// settlement, as a merchant's past looks, and the database analysed (PostgreSQL: vacuumed, as
// autovacuum would have). Then, each the median of several rounds:
// - the balance as the gateway reads it (the running totals row), and as it was read (the sum of
//   every entry by kind);
// - the journal's first page (50 entries, newest first);
// - who has something to settle, from the queue and by the old anti-join over the whole ledger;
// - a settlement of 20 new payments (written first, not timed).
// - ledger/verify: the first run reads the whole journal and keeps a checkpoint (timed once); then,
//   after 20 new payments, the incremental run (the median) — what an operator's verify costs.
// Not a test: nothing asserts timings.
import { mkdtempSync, rmSync } from 'node:fs';
import { cpus, loadavg, tmpdir } from 'node:os';
import { join } from 'node:path';
import Database from 'better-sqlite3';
import { createLedgerService } from '../src/books/ledger-service.ts';
import { settlementEntry } from '../src/books/postings.ts';
import { PostgresStore } from '../src/store/postgres/postgres-store.ts';
import { SqliteStore } from '../src/store/sqlite/sqlite-store.ts';
import type { Store } from '../src/store/store.ts';
import { postgresRawSql } from '../test/helpers/sql-adapters.ts';
import { benchMerchant, fmt, freshPostgres, table } from './bench-kit.ts';

const SMALL = 1_000;
const ROUNDS = 9;
const M = '6c1f2a3b-4d5e-4f60-8a7b-9c0d1e2f3a4b';

interface Args {
  entries: number;
  engines: Array<'sqlite' | 'postgres'>;
  pgUrl: string;
}

function parseArgs(argv: string[]): Args {
  const args: Args = {
    entries: 2_000_000,
    engines: ['sqlite', 'postgres'],
    pgUrl: process.env.SNAPGATE_TEST_PG_URL ?? 'postgres://postgres@127.0.0.1:5432/test',
  };
  for (let i = 0; i < argv.length; i++) {
    const flag = argv[i];
    const value = argv[i + 1];
    if (flag === '--entries' && value) {
      args.entries = Number(value);
      i++;
    } else if (flag === '--engines' && value) {
      args.engines = value.split(',') as Args['engines'];
      i++;
    } else if (flag === '--pg-url' && value) {
      args.pgUrl = value;
      i++;
    } else throw new Error(`unknown argument ${flag}`);
  }
  if (!Number.isInteger(args.entries) || args.entries < SMALL) throw new Error(`--entries: at least ${SMALL}`);
  return args;
}

/** A store of one engine with raw SQL beside it (to write a history fast, and to time the old reads). */
interface Bench {
  store: Store;
  exec(sql: string, params?: unknown[]): Promise<void>;
  all(sql: string, params?: unknown[]): Promise<Array<Record<string, unknown>>>;
  close(): Promise<void>;
}

async function openSqlite(): Promise<Bench> {
  const dir = mkdtempSync(join(tmpdir(), 'snapgate-bench-books-'));
  const file = join(dir, 'snapgate.db');
  const store = new SqliteStore({ file });
  await store.migrate();
  const db = new Database(file);
  db.pragma('busy_timeout = 10000');
  return {
    store,
    exec: async (sql, params = []) => void db.prepare(sql).run(...params),
    all: async (sql, params = []) => db.prepare(sql).all(...params) as Array<Record<string, unknown>>,
    async close() {
      db.close();
      await store.close();
      rmSync(dir, { recursive: true, force: true });
    },
  };
}

async function openPostgres(baseUrl: string): Promise<Bench> {
  const db = await freshPostgres(baseUrl);
  const store = new PostgresStore({ connectionString: db.url, statementTimeoutMs: 600_000 });
  await store.migrate();
  const raw = await postgresRawSql(db.url);
  return {
    store,
    exec: raw.exec,
    all: raw.all,
    async close() {
      await raw.close();
      await store.close();
      await db.drop();
    },
  };
}

/**
 * `count` payment entries for the merchant, from entry number `from`, at `at` (through the triggers),
 * each with the paid transaction it posts (verification checks every entry's cause).
 */
async function writePayments(b: Bench, engine: 'sqlite' | 'postgres', from: number, count: number, at: number) {
  // PostgreSQL: each row's trigger updates the merchant's totals row, and one transaction's own dead
  // versions of that row are not pruned before it ends: small transactions keep the build linear.
  const chunk = engine === 'sqlite' ? 100_000 : 2_000;
  for (let start = from; start < from + count; start += chunk) {
    const n = Math.min(chunk, from + count - start);
    const series =
      engine === 'sqlite'
        ? `WITH RECURSIVE s(i) AS (SELECT ${start} UNION ALL SELECT i + 1 FROM s WHERE i < ${start + n - 1}) SELECT i FROM s`
        : `SELECT generate_series(${start}, ${start + n - 1}) AS i`;
    const [last] = await b.all('SELECT coalesce(max(id), 0) AS id FROM ledger_entries');
    await b.exec(
      `INSERT INTO ledger_entries (at, kind, cause, merchant_id, provider_id, reference_no, amount_sen, fee_sen)
       SELECT ${at}, 'payment', 'payment:B' || i, '${M}', 'bank-bench', 'B' || i, 1000000, 7000 FROM (${series}) q`,
    );
    await b.exec(
      `INSERT INTO transactions (reference_no, merchant_id, kind, partner_reference_no, status, seq, amount, currency,
         paid_amount, fee_amount, bill_number, paid_at, details, created_at, updated_at, payment_entry_id)
       SELECT e.reference_no, e.merchant_id, 'qris', 'P' || e.reference_no, '00', 1, '10000.00', 'IDR',
         '10000.00', '70.00', e.id, e.at, ${engine === 'sqlite' ? "'{}'" : "'{}'::jsonb"}, e.at, e.at, e.id
       FROM ledger_entries e
       WHERE e.id > ? AND e.kind = 'payment'`,
      [Number(last?.id ?? 0)],
    );
  }
}

async function median(run: () => Promise<unknown>, rounds = ROUNDS): Promise<number> {
  const times: number[] = [];
  for (let i = 0; i < rounds; i++) {
    const t0 = process.hrtime.bigint();
    await run();
    times.push(Number(process.hrtime.bigint() - t0) / 1e6);
  }
  times.sort((x, y) => x - y);
  return times[Math.floor(times.length / 2)] as number;
}

/** The figures of one history on one store, in ms. */
async function measure(engine: 'sqlite' | 'postgres', entries: number, pgUrl: string) {
  const b = engine === 'sqlite' ? await openSqlite() : await openPostgres(pgUrl);
  try {
    await b.store.insertMerchant(benchMerchant(M));
    const built = Date.now();
    await writePayments(b, engine, 1, entries, 1_000);
    await b.store.settleMerchant({ id: 'stl-history', merchantId: M, cutoff: 2_000, at: 2_000, slot: null }, (s) =>
      settlementEntry(s, 2_000),
    );
    const buildMs = Date.now() - built;
    // As a history that grew over months finds its tables: the settled queue's dead rows vacuumed,
    // the statistics current.
    await b.exec(engine === 'sqlite' ? 'ANALYZE' : 'VACUUM ANALYZE');
    const balance = await median(() => b.store.runningTotals(M));
    const balanceBySum = await median(() => b.store.ledgerTotals(M), 3);
    const journal = await median(() => b.store.listLedgerEntries({ merchantId: M }, { limit: 50 }));
    const unsettled = await median(() => b.store.merchantsWithUnsettled(10_000));
    const unsettledByAntiJoin = await median(
      () =>
        b.all(
          `SELECT DISTINCT e.merchant_id FROM ledger_entries e
           WHERE e.kind IN ('payment', 'refund', 'disbursement', 'disbursement_returned') AND e.at < ?
             AND NOT EXISTS (SELECT 1 FROM settlement_items i WHERE i.entry_id = e.id)`,
          [10_000],
        ),
      3,
    );
    const settlements: number[] = [];
    for (let round = 0; round < 5; round++) {
      await writePayments(b, engine, entries + 1 + round * 20, 20, 3_000 + round);
      const t0 = process.hrtime.bigint();
      await b.store.settleMerchant(
        { id: `stl-new-${round}`, merchantId: M, cutoff: 3_001 + round, at: 3_001 + round, slot: null },
        (s) => settlementEntry(s, 3_001 + round),
      );
      settlements.push(Number(process.hrtime.bigint() - t0) / 1e6);
    }
    settlements.sort((x, y) => x - y);
    const ledger = createLedgerService({ store: b.store });
    const timed = async <T>(run: () => Promise<T>): Promise<[T, number]> => {
      const t0 = process.hrtime.bigint();
      const value = await run();
      return [value, Number(process.hrtime.bigint() - t0) / 1e6];
    };
    const [first, verifyFirst] = await timed(() => ledger.verify());
    if (!first.ok) throw new Error(`the history does not verify: ${JSON.stringify(first.problems.slice(0, 3))}`);
    const verifies: number[] = [];
    for (let round = 0; round < 5; round++) {
      await writePayments(b, engine, entries + 101 + round * 20, 20, 4_000 + round);
      const [run, ms] = await timed(() => ledger.verify());
      if (!run.ok) throw new Error(`verify failed: ${JSON.stringify(run.problems.slice(0, 3))}`);
      verifies.push(ms);
    }
    verifies.sort((x, y) => x - y);
    return {
      buildMs,
      balance,
      balanceBySum,
      journal,
      unsettled,
      unsettledByAntiJoin,
      settlement: settlements[2] as number,
      verifyFirst,
      verify: verifies[2] as number,
    };
  } finally {
    await b.close();
  }
}

async function main() {
  const args = parseArgs(process.argv.slice(2));
  console.log(
    `bench:books — ${fmt(args.entries)} settled payments against ${fmt(SMALL)}; ${cpus().length} CPUs, load ${loadavg()
      .map((l) => l.toFixed(2))
      .join(' ')}`,
  );
  for (const engine of args.engines) {
    const small = await measure(engine, SMALL, args.pgUrl);
    const large = await measure(engine, args.entries, args.pgUrl);
    const ms = (v: number | undefined) => (v === undefined ? '—' : fmt(v, 2));
    const ratio = (s: number | undefined, l: number | undefined) =>
      s === undefined || l === undefined ? '—' : `${(l / s).toFixed(2)}×`;
    const row = (what: string, s: number | undefined, l: number | undefined) => [what, ms(s), ms(l), ratio(s, l)];
    console.log(`\n${engine} (history written and settled in ${fmt(large.buildMs / 1000, 1)} s)`);
    console.log(
      table(
        ['median, ms', fmt(SMALL), fmt(args.entries), 'large ÷ small'],
        [
          row('balance (running totals)', small.balance, large.balance),
          row('  before: sum of every entry', small.balanceBySum, large.balanceBySum),
          row('journal, first page of 50', small.journal, large.journal),
          row('who to settle (queue)', small.unsettled, large.unsettled),
          row('  before: anti-join over the ledger', small.unsettledByAntiJoin, large.unsettledByAntiJoin),
          row('settlement of 20 new payments', small.settlement, large.settlement),
          row('ledger/verify, 20 new payments', small.verify, large.verify),
          row('  first verify (no checkpoint yet)', small.verifyFirst, large.verifyFirst),
        ],
      ),
    );
  }
}

await main();

// Transaction search by part of a reference at a million transactions: the console's search (the
// store's searchTransactions, a page of 51) against the same search without the trigram index (a
// LIKE over every row), side by side in one run, on SQLite and PostgreSQL.
//
//   npm run bench:search                          # 1,000,000 transactions, both stores
//   npm run bench:search -- --rows 200000         # fewer
//   npm run bench:search -- --store sqlite        # one store (postgres needs SNAPGATE_DATABASE_URL or
//                                                 # postgres@127.0.0.1:5432, database test)
//
// The transactions are written straight into the tables (setup, not measured), so the triggers and
// the indexes fill as they would one payment at a time (SQLite: the search queue, then the store's
// batches into the trigram index); the load time is printed too. Each search is
// run 15 times after one warm-up; the median and the slowest are printed. Not a test: nothing
// asserts timings.
import { mkdtempSync, rmSync } from 'node:fs';
import { availableParallelism, cpus, tmpdir } from 'node:os';
import { join } from 'node:path';
import pg from 'pg';
import { PostgresStore } from '../src/store/postgres/postgres-store.ts';
import { SqliteStore } from '../src/store/sqlite/sqlite-store.ts';
import type { Store } from '../src/store/store.ts';
import { merchant as newMerchant } from '../test/store/contract.ts';
import { fmt, freshPostgres, median, table } from './bench-kit.ts';

const RUNS = 15;
const PAGE = 51;

interface Options {
  rows: number;
  stores: Array<'sqlite' | 'postgres'>;
}

function parseArgs(argv: string[]): Options {
  const o: Options = { rows: 1_000_000, stores: ['sqlite', 'postgres'] };
  for (let i = 0; i < argv.length; i++) {
    const a = argv[i];
    if (a === '--rows') {
      const n = Number(argv[++i]);
      if (!Number.isInteger(n) || n < 1000 || n > 5_000_000) throw new TypeError('--rows takes 1,000 to 5,000,000');
      o.rows = n;
    } else if (a === '--store') {
      const s = argv[++i];
      if (s !== 'sqlite' && s !== 'postgres') throw new TypeError('--store takes sqlite or postgres');
      o.stores = [s];
    } else throw new TypeError(`unknown option ${a}; use --rows N and --store sqlite|postgres`);
  }
  return o;
}

/** Row i's references: a production-like referenceNo, the merchant's own reference, a VA number for odd rows. */
const refsOf = (i: number) => ({
  referenceNo: `2611${String(26_000_000_000_000 + ((i * 7_919) % 9_000_000_000_000)).padStart(14, '0')}`,
  partnerReferenceNo: `INV-${String(i).padStart(8, '0')}-Kopi`,
  virtualAccountNo: i % 2 === 1 ? `   88899${String(i).padStart(10, '0')}` : null,
});

const INSERT = `INSERT INTO transactions (reference_no, merchant_id, kind, partner_reference_no, status, seq, amount,
  currency, virtual_account_no, bill_number, details, created_at, updated_at)`;

/** The searches: a hit in each reference, a miss, and a term too short for trigrams. */
function searchesFor(rows: number): Array<[string, string]> {
  const i = Math.floor(rows / 2) + 1;
  const r = refsOf(i);
  return [
    ['part of a referenceNo (10 digits)', r.referenceNo.slice(6, 16)],
    ['part of a partnerReferenceNo, other case', `inv-${String(i).padStart(8, '0')}`.toUpperCase()],
    ['the end of a VA number (8 digits)', (r.virtualAccountNo ?? '').slice(-8)],
    ['a term found nowhere', 'no-such-reference'],
    ['2 characters found nowhere (no index)', 'zz'],
  ];
}

async function timeIt(run: () => Promise<unknown>): Promise<{ median: number; max: number; found: number }> {
  let found = Number((await run()) ?? 0);
  const ms: number[] = [];
  for (let k = 0; k < RUNS; k++) {
    const t = performance.now();
    found = Number(await run());
    ms.push(performance.now() - t);
  }
  return { median: median(ms), max: Math.max(...ms), found };
}

async function runSqlite(o: Options): Promise<string[][]> {
  const dir = mkdtempSync(join(tmpdir(), 'snapgate-bench-search-'));
  const store = new SqliteStore({ file: join(dir, 'search.db'), writer: 'inline' });
  try {
    const m = newMerchant();
    await store.insertMerchant(m);
    const t0 = performance.now();
    const insert = store.db.prepare(`${INSERT} VALUES (?, ?, ?, ?, '01', 1, '10000.00', 'IDR', ?, ?, '{}', ?, ?)`);
    const load = store.db.transaction((from: number, to: number) => {
      for (let i = from; i < to; i++) {
        const r = refsOf(i);
        insert.run(
          r.referenceNo,
          m.id,
          r.virtualAccountNo ? 'va' : 'qris',
          r.partnerReferenceNo,
          r.virtualAccountNo,
          i,
          i,
          i,
        );
      }
    });
    for (let i = 0; i < o.rows; i += 50_000) load(i, Math.min(o.rows, i + 50_000));
    // New transactions wait in the search queue; the store indexes them in batches (as it does each second).
    const t1 = performance.now();
    await store.catchUpSearch();
    process.stderr.write(`SQLite: the search queue indexed in ${fmt((performance.now() - t1) / 1000, 1)} s\n`);
    const loadSec = (performance.now() - t0) / 1000;
    const scan = store.db.prepare(
      `SELECT count(*) AS n FROM (SELECT reference_no FROM transactions
         WHERE reference_no LIKE ? OR partner_reference_no LIKE ? OR virtual_account_no LIKE ?
         ORDER BY created_at DESC, reference_no DESC LIMIT ${PAGE})`,
    );
    return await measure(o, 'SQLite', store, loadSec, async (term) => {
      const like = `%${term}%`;
      return (scan.get(like, like, like) as { n: number }).n;
    });
  } finally {
    await store.close();
    rmSync(dir, { recursive: true, force: true });
  }
}

async function runPostgres(o: Options): Promise<string[][]> {
  const base = process.env.SNAPGATE_DATABASE_URL ?? 'postgres://postgres@127.0.0.1:5432/test';
  const db = await freshPostgres(base);
  const store = new PostgresStore({ connectionString: db.url });
  const c = new pg.Client({ connectionString: db.url });
  try {
    await store.migrate();
    const m = newMerchant();
    await store.insertMerchant(m);
    await c.connect();
    const t0 = performance.now();
    for (let from = 0; from < o.rows; from += 100_000) {
      const to = Math.min(o.rows, from + 100_000);
      // The same references as refsOf, made by the server.
      await c.query(
        `${INSERT}
         SELECT '2611' || lpad((26000000000000 + (i::bigint * 7919) % 9000000000000)::text, 14, '0'), $1,
           CASE WHEN i % 2 = 1 THEN 'va' ELSE 'qris' END, 'INV-' || lpad(i::text, 8, '0') || '-Kopi', '01', 1,
           '10000.00', 'IDR', CASE WHEN i % 2 = 1 THEN '   88899' || lpad(i::text, 10, '0') END, i, '{}', i, i
         FROM generate_series($2::int, $3::int - 1) AS i`,
        [m.id, from, to],
      );
    }
    await c.query('ANALYZE transactions');
    const loadSec = (performance.now() - t0) / 1000;
    return await measure(o, 'PostgreSQL', store, loadSec, async (term) => {
      // The same LIKE, on an expression the index does not cover: every row is read.
      const r = await c.query(
        `SELECT count(*) AS n FROM (SELECT reference_no FROM transactions
           WHERE lower(reference_no || ' ' || partner_reference_no || ' ' || coalesce(virtual_account_no, '') || '') LIKE $1
           ORDER BY created_at DESC, reference_no DESC LIMIT ${PAGE}) x`,
        [`%${term.toLowerCase()}%`],
      );
      return Number(r.rows[0]?.n);
    });
  } finally {
    await c.end().catch(() => undefined);
    await store.close();
    await db.drop();
  }
}

async function measure(
  o: Options,
  name: string,
  store: Store,
  loadSec: number,
  scan: (term: string) => Promise<number>,
): Promise<string[][]> {
  process.stderr.write(`${name}: ${fmt(o.rows)} transactions loaded in ${fmt(loadSec, 1)} s; searching…\n`);
  const rows: string[][] = [];
  for (const [what, term] of searchesFor(o.rows)) {
    const indexed = await timeIt(async () => (await store.searchTransactions({ reference: term }, PAGE, 0)).length);
    const scanned = await timeIt(() => scan(term));
    rows.push([
      `${name}: ${what}`,
      fmt(indexed.found),
      `${fmt(indexed.median, 1)} / ${fmt(indexed.max, 1)}`,
      `${fmt(scanned.median, 1)} / ${fmt(scanned.max, 1)}`,
    ]);
  }
  return rows;
}

async function main(): Promise<void> {
  const o = parseArgs(process.argv.slice(2));
  const rows: string[][] = [];
  for (const s of o.stores) rows.push(...(s === 'sqlite' ? await runSqlite(o) : await runPostgres(o)));
  process.stdout.write(
    `${[
      `Transaction search benchmark — ${fmt(o.rows)} transactions, a page of ${PAGE}, median / slowest of ${RUNS} runs`,
      `Node ${process.version}, ${availableParallelism()} CPUs (${cpus()[0]?.model ?? 'unknown'}).`,
      '',
      table(['Search', 'found', 'indexed ms', 'without the index ms'], rows),
      '',
      'indexed: the store’s search (SQLite FTS5 trigram table, PostgreSQL pg_trgm GIN index; a term under 3',
      'characters reads the table). Without the index: the same match as a LIKE over every row.',
    ].join('\n')}\n`,
  );
}

await main().catch((e: Error) => {
  process.stderr.write(`bench:search: ${e.message}\n`);
  process.exitCode = 1;
});

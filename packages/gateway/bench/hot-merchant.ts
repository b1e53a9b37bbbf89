// One busy merchant, two instances (docs/benchmarks.md#one-busy-merchant-two-instances): does a
// merchant's balance row (ADR 0013, 0014) serialize its payments across gateway instances on
// PostgreSQL? Every payment's transaction updates that merchant's row (`merchant_unsettled`, moved by
// the ledger's trigger) and holds its lock until it commits, so two instances paying one merchant
// could take turns where paying many merchants would not.
//
//   npm run bench:hot-merchant                          # 2 processes, 10,000 payments a run, 2 rounds
//   npm run bench:hot-merchant -- --processes 1 --payments 4000 --rounds 1
//
// A run: a fresh database (migrated), 64 merchants, `--payments` open QRIS written straight into it,
// then `--processes` child processes, each its own PostgresStore (pool of 16) as a gateway instance
// has, paying its half of them through the store exactly as a payment commits (the status change,
// its history row, the payment's ledger entry and its notification in one transaction), 16 in flight
// each. Two workloads alternate in each round: every payment to one merchant, and the payments spread
// over the 64. Printed: payments/s from the first payment to the last commit, each payment's commit
// latency (p50, p99), and the ratio one merchant ÷ spread. Not a test: nothing asserts timings.
import { fork } from 'node:child_process';
import { cpus, loadavg } from 'node:os';
import { fileURLToPath } from 'node:url';
import pg from 'pg';
import { PostgresStore } from '../src/store/postgres/postgres-store.ts';
import { benchMerchant, fmt, freshPostgres, type Percentiles, paymentChange, percentiles, table } from './bench-kit.ts';

const MERCHANTS = 64;
const IN_FLIGHT = 16;
const PROVIDER = 'bank-bench';

interface Args {
  payments: number;
  processes: number;
  rounds: number;
  pgUrl: string;
}

function parseArgs(argv: string[]): Args {
  const args: Args = {
    payments: 10_000,
    processes: 2,
    rounds: 2,
    pgUrl: process.env.SNAPGATE_TEST_PG_URL ?? 'postgres://postgres@127.0.0.1:5432/test',
  };
  for (let i = 0; i < argv.length; i++) {
    const flag = argv[i];
    const n = Number(argv[i + 1]);
    if (flag === '--payments' && Number.isInteger(n) && n >= 100) args.payments = n;
    else if (flag === '--processes' && Number.isInteger(n) && n >= 1 && n <= 4) args.processes = n;
    else if (flag === '--rounds' && Number.isInteger(n) && n >= 1) args.rounds = n;
    else if (flag === '--pg-url' && argv[i + 1]) args.pgUrl = argv[i + 1] as string;
    else throw new Error(`unknown or bad argument ${flag} ${argv[i + 1] ?? ''}`);
    i++;
  }
  return args;
}

const merchantId = (i: number) => `7d0c0000-0000-4000-8000-${String(i).padStart(12, '0')}`;

/** What a payer child is told, and what it answers. */
interface PayerTask {
  url: string;
  refs: string[];
}
interface PayerResult {
  paid: number;
  firstAt: number;
  lastAt: number;
  latencies: number[];
}

/** A payer child: one store (one instance's pool), paying its references 16 at a time. */
async function servePayer(): Promise<void> {
  const task = await new Promise<PayerTask>((resolve) => process.once('message', (m) => resolve(m as PayerTask)));
  const store = new PostgresStore({ connectionString: task.url });
  // The transactions, read before the start (as an instance finds the one a bank flags).
  const txns = await Promise.all(task.refs.map((r) => store.findTransaction(r)));
  process.send?.('ready');
  await new Promise((resolve) => process.once('message', resolve));
  const latencies: number[] = [];
  let next = 0;
  const firstAt = Date.now();
  const lane = async () => {
    for (let i = next++; i < txns.length; i = next++) {
      const t = txns[i];
      if (!t) throw new Error(`transaction ${task.refs[i]} is not in the database`);
      const t0 = process.hrtime.bigint();
      const changed = await store.changeStatus(paymentChange(t, Date.now(), PROVIDER));
      if (!changed) throw new Error(`${t.referenceNo} was not changed`);
      latencies.push(Number(process.hrtime.bigint() - t0) / 1e6);
    }
  };
  await Promise.all(Array.from({ length: IN_FLIGHT }, lane));
  const result: PayerResult = { paid: latencies.length, firstAt, lastAt: Date.now(), latencies };
  process.send?.(result);
  await store.close();
  process.disconnect();
}

interface Run {
  perSecond: number;
  latency: Percentiles;
}

async function run(args: Args, spread: boolean): Promise<Run> {
  const db = await freshPostgres(args.pgUrl);
  const store = new PostgresStore({ connectionString: db.url });
  const children: ReturnType<typeof fork>[] = [];
  try {
    await store.migrate();
    for (let i = 0; i < MERCHANTS; i++) {
      const m = benchMerchant(merchantId(i));
      await store.insertMerchant({ ...m, clientKey: `bench-ck-${i}`, partnerId: `bench-partner-${i}` });
    }
    const client = new pg.Client({ connectionString: db.url });
    await client.connect();
    const now = Date.now();
    // Open QRIS, references in creation order; the merchant by payment number (spread) or one.
    await client.query(
      `INSERT INTO transactions (reference_no, merchant_id, kind, partner_reference_no, status, seq, amount, currency,
         fee_amount, bill_number, expires_at, details, created_at, updated_at)
       SELECT 'H' || lpad(i::text, 17, '0'),
              '7d0c0000-0000-4000-8000-' || lpad(${spread ? `(i % ${MERCHANTS})::text` : "'0'"}, 12, '0'),
              'qris', 'P' || i, '01', 1, '150000.00', 'IDR', '1050.00', i, $1,
              '{"qrContent":"00020101021226","terminalId":"T001","storeId":"S001"}'::jsonb, $2, $2
       FROM generate_series(1, $3) AS i`,
      [now + 3_600_000, now, args.payments],
    );
    await client.query('VACUUM ANALYZE');
    await client.end();
    const refs = Array.from({ length: args.payments }, (_, i) => `H${String(i + 1).padStart(17, '0')}`);
    const results: Promise<PayerResult>[] = [];
    const ready: Promise<unknown>[] = [];
    for (let p = 0; p < args.processes; p++) {
      const child = fork(fileURLToPath(import.meta.url), ['--serve', 'payer'], {
        execArgv: process.execArgv,
        stdio: ['ignore', 'inherit', 'inherit', 'ipc'],
      });
      children.push(child);
      const exited = new Promise<never>((_, reject) =>
        child.once('exit', (code) => reject(new Error(`a payer exited with ${code}`))),
      );
      let isReady = false;
      ready.push(
        Promise.race([
          new Promise((resolve) =>
            child.once('message', (m) => {
              isReady = m === 'ready';
              resolve(m);
            }),
          ),
          exited,
        ]),
      );
      results.push(
        Promise.race([
          new Promise<PayerResult>((resolve) =>
            child.on('message', (m) => {
              if (isReady && typeof m === 'object') resolve(m as PayerResult);
            }),
          ),
          exited,
        ]),
      );
      child.send({ url: db.url, refs: refs.filter((_, i) => i % args.processes === p) } satisfies PayerTask);
    }
    await Promise.all(ready);
    for (const child of children) child.send('go');
    const done = await Promise.all(results);
    const firstAt = Math.min(...done.map((d) => d.firstAt));
    const lastAt = Math.max(...done.map((d) => d.lastAt));
    const paid = done.reduce((s, d) => s + d.paid, 0);
    // Every payment is in the merchant's running totals: none lost to a race on the row.
    const totals = await Promise.all(
      Array.from({ length: spread ? MERCHANTS : 1 }, (_, i) => store.runningTotals(merchantId(i))),
    );
    const volume = totals.reduce((s, t) => s + t.pendingSen + t.feesSen, 0n);
    if (volume !== BigInt(paid) * 15_000_000n) throw new Error(`running totals ${volume} sen for ${paid} payments`);
    return {
      perSecond: paid / ((lastAt - firstAt) / 1000),
      latency: percentiles(done.flatMap((d) => d.latencies)),
    };
  } finally {
    for (const child of children) if (child.connected) child.disconnect();
    await store.close();
    await db.drop();
  }
}

async function main() {
  const args = parseArgs(process.argv.slice(2));
  console.log(
    `bench:hot-merchant — ${fmt(args.payments)} payments by ${args.processes} process(es) on one PostgreSQL, ${IN_FLIGHT} in flight each; ${cpus().length} CPUs, load ${loadavg()
      .map((l) => l.toFixed(2))
      .join(' ')}`,
  );
  const rows: string[][] = [];
  for (let round = 1; round <= args.rounds; round++) {
    const spread = await run(args, true);
    const one = await run(args, false);
    const row = (what: string, r: Run) => [
      `${round}`,
      what,
      fmt(r.perSecond),
      fmt(r.latency.p50, 1),
      fmt(r.latency.p99, 1),
    ];
    rows.push(row(`spread over ${MERCHANTS} merchants`, spread));
    rows.push(row('one merchant', one));
    rows.push([`${round}`, 'one merchant ÷ spread', `${(one.perSecond / spread.perSecond).toFixed(2)}×`, '', '']);
  }
  console.log(table(['round', 'payments', 'payments/s', 'p50 ms', 'p99 ms'], rows));
}

if (process.argv[2] === '--serve' && process.argv[3] === 'payer') await servePayer();
else await main();

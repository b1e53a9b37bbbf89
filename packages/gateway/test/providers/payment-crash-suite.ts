import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, it } from 'node:test';
import { adminApiOf, type GatewayProcess, spawnGateway } from '../helpers/process.ts';
import { startReceiver, waitFor } from '../helpers/receiver.ts';
import { authenticate, type SnapCaller, snapCall } from '../helpers/snap.ts';
import type { StoreUnderTest } from '../helpers/store-under-test.ts';

const ADMIN = 'payment-crash-admin-token-0000';
const API = '/api/snap/v1.0/transfer-va';
const N = 200;
/** Concurrent payment flags in flight during the burst. */
const IN_FLIGHT = 40;
/** The gateway is killed once this many flags have been answered. */
const KILL_AFTER = 70;

interface Va {
  partnerServiceId: string;
  customerNo: string;
  virtualAccountNo: string;
  trxId: string;
}

interface Answer {
  status: number;
  text: string;
  body: any;
}

const admin = adminApiOf(ADMIN);

/** Every page of an admin list. */
async function listAll<T>(gw: GatewayProcess, path: string): Promise<T[]> {
  const out: T[] = [];
  let cursor: string | null = null;
  do {
    const page = await admin(gw, 'GET', `${path}&limit=500${cursor ? `&cursor=${encodeURIComponent(cursor)}` : ''}`);
    assert.equal(page.status, 200, JSON.stringify(page.body));
    out.push(...(page.body.items as T[]));
    cursor = page.body.nextCursor;
  } while (cursor);
  return out;
}

/** Runs `work` over 0..count-1 with at most `width` calls in flight; stops taking work once `stop()` holds. */
async function pool(count: number, width: number, work: (i: number) => Promise<void>, stop = () => false) {
  let next = 0;
  const worker = async () => {
    while (next < count && !stop()) await work(next++);
  };
  await Promise.all(Array.from({ length: width }, worker));
}

export function paymentCrashSuite(under: StoreUnderTest): void {
  describe(`bank payment flags across a crash (${under.name})`, () => {
    it('after kill -9 during a burst of 200 bank payment flags, every flag answered 2002500 is paid after restart and each VA is notified exactly once', {
      timeout: 120_000,
    }, async (t) => {
      const dir = mkdtempSync(join(tmpdir(), 'snapgate-paycrash-'));
      const receiver = await startReceiver();
      const db = await under.processEnv(dir, 'gw');
      const env = {
        ...db.env,
        SNAPGATE_ADMIN_TOKEN: ADMIN,
        SNAPGATE_RATE_LIMIT: 'off',
        SNAPGATE_RETRY_SCHEDULE: '0s,200ms,200ms,200ms,200ms,200ms,200ms,200ms,200ms,200ms',
        SNAPGATE_CALLBACK_TIMEOUT_MS: '2000',
      };
      let gw = await spawnGateway(env);
      try {
        const m = (await admin(gw, 'POST', '/merchants', { name: 'Paycrash', callbackBaseUrl: receiver.baseUrl })).body;
        const p = await admin(gw, 'POST', '/providers', { name: 'Bank Central', kind: 'bank', bankCode: '014' });
        assert.equal(p.status, 201, JSON.stringify(p.body));
        const bankCredentials = {
          clientKey: p.body.clientKey as string,
          clientSecret: p.body.clientSecret as string,
          partnerId: p.body.clientKey as string,
        };
        const merchant = await authenticate(gw.url, m);
        let bank: SnapCaller = await authenticate(gw.url, bankCredentials);

        // 200 closed VAs of bank 014.
        const vas: Va[] = new Array(N);
        await pool(N, 4, async (i) => {
          const r = await snapCall(gw.url, merchant, `${API}/create-va`, {
            virtualAccountName: 'Budi Santoso',
            trxId: `PC-${i}`,
            totalAmount: { value: '150000.00', currency: 'IDR' },
            additionalInfo: { bankCode: '014' },
          });
          assert.equal(r.status, 200, r.text);
          vas[i] = r.body.virtualAccountData as Va;
        });

        const flag = (i: number, flagAdvise: 'N' | 'Y') => {
          const va = vas[i] as Va;
          return snapCall(gw.url, bank, `${API}/payment`, {
            partnerServiceId: va.partnerServiceId,
            customerNo: va.customerNo,
            virtualAccountNo: va.virtualAccountNo,
            paymentRequestId: `PR-${i}`,
            paidAmount: { value: '150000.00', currency: 'IDR' },
            trxDateTime: '2026-11-23T10:00:00+07:00',
            referenceNo: `BNK-${i}`,
            flagAdvise,
          });
        };

        // The burst: the process is killed from inside the answer handler, with flags still in flight.
        const answered = new Map<number, Answer>();
        const cut: number[] = [];
        let killed = false;
        await pool(
          N,
          IN_FLIGHT,
          async (i) => {
            try {
              const r = await flag(i, 'N');
              answered.set(i, r);
              if (!killed && answered.size >= KILL_AFTER) {
                killed = true;
                gw.child.kill('SIGKILL');
              }
            } catch {
              cut.push(i);
            }
          },
          () => killed,
        );
        await gw.exited;
        assert.ok(killed, 'the gateway was killed mid-burst');
        for (const [i, r] of answered) {
          assert.equal(r.status, 200, `PR-${i} before the kill: ${r.text}`);
          assert.equal(r.body.responseCode, '2002500', `PR-${i} before the kill: ${r.text}`);
        }
        const unanswered = [...Array(N).keys()].filter((i) => !answered.has(i));
        t.diagnostic(
          `answered before the kill: ${answered.size}, cut by the kill: ${cut.length}, never sent: ${unanswered.length - cut.length}`,
        );

        gw = await spawnGateway(env);
        bank = await authenticate(gw.url, bankCredentials);

        type Txn = { referenceNo: string; partnerReferenceNo: string; virtualAccountNo: string; status: string };
        const byTrxId = async () => {
          const txns = await listAll<Txn>(gw, `/transactions?merchantId=${encodeURIComponent(m.id)}`);
          return new Map(txns.map((x) => [x.partnerReferenceNo, x]));
        };

        // (a) Every flag answered 2002500 survived the kill.
        const before = await byTrxId();
        assert.equal(before.size, N);
        for (const i of answered.keys()) {
          const txn = before.get(`PC-${i}`);
          assert.equal(txn?.virtualAccountNo, vas[i]?.virtualAccountNo);
          assert.equal(txn?.status, '00', `PC-${i} was answered 2002500 before the kill, so it is paid`);
        }
        const committedUnanswered = unanswered.filter((i) => before.get(`PC-${i}`)?.status === '00').length;
        t.diagnostic(`committed but unanswered before the kill: ${committedUnanswered}`);

        // (b) The bank advises every unanswered flag again, and repeats some answered ones.
        const repeated = [...answered.keys()].filter((_, k) => k % 7 === 0);
        const again = [...unanswered, ...repeated];
        const retried = new Map<number, Answer>();
        await pool(again.length, 10, async (k) => {
          const i = again[k] as number;
          retried.set(i, await flag(i, 'Y'));
        });
        for (const i of again) {
          const r = retried.get(i) as Answer;
          assert.equal(r.status, 200, `PR-${i} advised again: ${r.text}`);
          assert.equal(r.body.responseCode, '2002500', `PR-${i} advised again: ${r.text}`);
          assert.equal(r.body.virtualAccountData.paymentRequestId, `PR-${i}`);
          assert.equal(r.body.virtualAccountData.virtualAccountNo, vas[i]?.virtualAccountNo);
        }
        for (const i of repeated) {
          assert.equal(retried.get(i)?.text, answered.get(i)?.text, `PR-${i} repeated answers the original bytes`);
        }

        // (c) Every VA is paid and has exactly one notification, and the merchant hears of each once.
        const after = await byTrxId();
        assert.equal(after.size, N);
        for (const [trxId, txn] of after) assert.equal(txn.status, '00', `${trxId} is paid`);
        const refs = new Set([...after.values()].map((x) => x.referenceNo));

        type Note = { id: string; referenceNo: string; state: string };
        const notes = await listAll<Note>(gw, `/notifications?merchantId=${encodeURIComponent(m.id)}`);
        const notesByRef = new Map<string, string[]>();
        for (const n of notes) notesByRef.set(n.referenceNo, [...(notesByRef.get(n.referenceNo) ?? []), n.id]);
        for (const ref of refs) assert.equal(notesByRef.get(ref)?.length, 1, `${ref} has exactly one notification`);
        assert.equal(notes.length, N);

        const idsByRef = () => {
          const out = new Map<string, Set<string>>();
          for (const r of receiver.received) {
            const ref = JSON.parse(r.body).originalReferenceNo as string;
            out.set(ref, (out.get(ref) ?? new Set()).add(r.headers['x-external-id'] as string));
          }
          return out;
        };
        await waitFor('a callback for every VA', () => idsByRef().size === N, 60_000);
        const seen = idsByRef();
        for (const ref of refs) {
          assert.deepEqual(
            [...(seen.get(ref) ?? [])],
            notesByRef.get(ref),
            `${ref} reached the merchant as one notification`,
          );
        }
        // At-least-once: a duplicate delivery carries the same X-EXTERNAL-ID and the same bytes.
        const bodiesById = new Map<string, Set<string>>();
        for (const r of receiver.received) {
          const id = r.headers['x-external-id'] as string;
          bodiesById.set(id, (bodiesById.get(id) ?? new Set()).add(r.body));
        }
        for (const [id, bodies] of bodiesById) assert.equal(bodies.size, 1, `${id} is always the same bytes`);
        for (const r of receiver.received) assert.equal(JSON.parse(r.body).latestTransactionStatus, '00');
        t.diagnostic(`callbacks received: ${receiver.received.length} for ${N} VAs`);

        // (d) The books survived too: one payment entry per paid VA, to the bank, and every invariant holds.
        const verified = await admin(gw, 'GET', '/ledger/verify');
        assert.deepEqual(verified.body.problems, [], 'ledger verify is clean after the kill');
        type Entry = { referenceNo: string; providerId: string };
        const payments = await listAll<Entry>(
          gw,
          `/ledger/entries?merchantId=${encodeURIComponent(m.id)}&kind=payment`,
        );
        assert.equal(payments.length, N);
        assert.deepEqual(
          new Set(payments.map((e) => e.referenceNo)),
          refs,
          'each paid VA has exactly one payment entry',
        );
        for (const e of payments) assert.equal(e.providerId, p.body.id);
        const balance = await admin(gw, 'GET', `/merchants/${encodeURIComponent(m.id)}/balance`);
        assert.equal(balance.body.pending, `${150_000 * N}.00`);
        // The running totals equal the entries summed, and the unsettled queue holds every entry:
        // one settlement takes all N.
        const full = await admin(gw, 'GET', '/ledger/verify?full=true');
        assert.deepEqual([full.body.mode, full.body.problems], ['full', []], 'the full check is clean after the kill');
        const settled = await admin(gw, 'POST', '/settlements', { merchantId: m.id });
        assert.equal(settled.status, 201, JSON.stringify(settled.body));
        assert.deepEqual(
          settled.body.items.map((s: { count: number; gross: string }) => [s.count, s.gross]),
          [[N, `${150_000 * N}.00`]],
        );
        const settledBalance = (await admin(gw, 'GET', `/merchants/${encodeURIComponent(m.id)}/balance`)).body;
        assert.deepEqual([settledBalance.pending, settledBalance.settling], ['0.00', `${150_000 * N}.00`]);
      } finally {
        gw.child.kill('SIGKILL');
        await receiver.close();
        await gw.exited;
        await db.cleanup();
        rmSync(dir, { recursive: true, force: true });
      }
    });
  });
}

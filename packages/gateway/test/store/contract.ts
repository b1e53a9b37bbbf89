import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import type { TransactionStatus } from '@snapgate/snap';
import type { SandboxTransferRecord } from '../../src/records/payout-records.ts';
import type { ProviderOutbound, ProviderRecord } from '../../src/records/provider-records.ts';
import {
  type AttemptRecord,
  type MerchantRecord,
  type TransactionRecord,
  UniqueViolation,
} from '../../src/records/records.ts';
import type { Store } from '../../src/store/store.ts';

export interface StoreFactory {
  open(): Promise<Store>;
  cleanup(): Promise<void>;
}

let seq = 0;
const uid = (p: string) => `${p}-${Date.now()}-${++seq}`;
const T0 = 1_800_000_000_000;

export function merchant(over: Partial<MerchantRecord> = {}): MerchantRecord {
  const id = uid('m');
  return {
    id,
    name: 'Contract',
    clientKey: uid('ck'),
    clientSecret: 'secret',
    previousSecret: null,
    previousValidUntil: null,
    secretVersion: 1,
    tokensNotBefore: null,
    retrySchedule: null,
    portalNotBefore: null,
    partnerId: uid('p'),
    publicKeyPem: null,
    tokenSignature: 'any',
    callbackSignature: 'hmac-sha512',
    callbackJson: 'standard',
    callbackVaBody: 'standard',
    callbackAck: 'strict',
    callbackTokenUrl: null,
    callbackBaseUrl: 'http://127.0.0.1:1',
    qrisProvider: null,
    qrisCriteria: 'UMI',
    fees: null,
    qrisCallbackUrl: null,
    vaCallbackUrl: null,
    merchantName: 'Contract',
    merchantCity: 'JAKARTA',
    nmid: 'ID1234567890123',
    nmidGenerated: false,
    mcc: '5999',
    status: 'active',
    createdAt: T0,
    updatedAt: T0,
    ...over,
  };
}

const OUTBOUND: ProviderOutbound = {
  baseUrl: 'https://acquirer.example',
  clientKey: 'ck',
  clientSecret: 'cs',
  privateKeyPem: null,
  partnerId: 'pid',
  channelId: '95221',
  tokenPath: '/api/snap/v1.0/access-token/b2b',
  pathPrefix: '/api/snap/v1.0',
};

function provider(over: Partial<ProviderRecord> = {}): ProviderRecord {
  return {
    id: uid('prv'),
    name: 'Provider',
    // Acquirers: any number may share a bankCode (one active bank per bankCode at most).
    kind: 'acquirer',
    bankCode: '014',
    clientKey: uid('pck'),
    clientSecret: 'psecret',
    previousSecret: null,
    previousValidUntil: null,
    secretVersion: 1,
    tokensNotBefore: null,
    publicKeyPem: null,
    outbound: null,
    isSandbox: false,
    acquiresGatewayQris: false,
    status: 'active',
    createdAt: T0,
    updatedAt: T0,
    ...over,
  };
}

/** A transaction fixture; the store keeps `details` as given, whatever the kind. */
export function txn(merchantId: string, over: Partial<TransactionRecord> = {}): TransactionRecord {
  return {
    referenceNo: uid('r'),
    merchantId,
    kind: 'qris',
    partnerReferenceNo: uid('pr'),
    status: '01',
    statusDesc: 'Initiated',
    seq: 1,
    amount: '10000.00',
    currency: 'IDR',
    paidAmount: null,
    refundedAmount: '0.00',
    feeAmount: '0.00',
    virtualAccountNo: null,
    billNumber: 123456789012,
    expiresAt: T0 + 60_000,
    paidAt: null,
    details: { qrContent: 'x', additionalInfo: { nested: { a: [1, 2] } } },
    createdAt: T0,
    updatedAt: T0,
    ...over,
  } as TransactionRecord;
}

const attempt = (
  n: { id: string },
  worker: string,
  outcome: AttemptRecord['outcome'],
  nextAttemptAt?: number,
): AttemptRecord => ({
  notificationId: n.id,
  workerId: worker,
  startedAt: T0,
  url: 'http://127.0.0.1:1/x',
  requestHeaders: { 'x-external-id': n.id },
  responseStatus: outcome === 'acknowledged' ? 200 : 500,
  responseBody: outcome === 'acknowledged' ? '{"responseCode":"2002600"}' : 'no',
  durationMs: 3,
  outcome,
  error: outcome === 'acknowledged' ? null : 'HTTP 500',
  nextAttemptAt,
  finishedAt: T0 + 10,
});

/** The same cases, the same results, for every Store implementation. */
export function storeContract(name: string, factory: StoreFactory): void {
  describe(`Store contract: ${name}`, () => {
    let store: Store;
    before(async () => {
      store = await factory.open();
    });
    after(async () => {
      await store.close();
      await factory.cleanup();
    });

    const change = async (
      t: TransactionRecord,
      status: TransactionStatus,
      at: number,
      id = uid('n').replace(/\D/g, ''),
    ) =>
      store
        .changeStatus({
          referenceNo: t.referenceNo,
          expectedSeq: t.seq,
          status,
          statusDesc: null,
          reason: null,
          at,
          notification: { id, body: `{"s":"${status}"}`, nextAttemptAt: at },
        })
        .then((r) => r?.txn);

    it('keeps settings, first writer wins', async () => {
      assert.equal(await store.getOrCreateSetting('k1', () => 'a'), 'a');
      assert.equal(await store.getOrCreateSetting('k1', () => 'b'), 'a');
      assert.equal(await store.getSetting('nope'), undefined);
    });

    it('stores, finds, pages, updates and rotates merchants', async () => {
      const m = merchant();
      await store.insertMerchant(m);
      await store.insertMerchant(merchant({ createdAt: T0 + 1 }));
      assert.deepEqual(await store.findMerchantById(m.id), m);
      assert.deepEqual(await store.findMerchantByClientKey(m.clientKey), m);
      const u = await store.updateMerchant(m.id, { status: 'disabled', qrisCallbackUrl: 'https://x' }, T0 + 1);
      assert.equal(u?.status, 'disabled');
      assert.equal(u?.qrisCallbackUrl, 'https://x');
      assert.equal(u?.updatedAt, T0 + 1);
      assert.equal(u?.tokensNotBefore, T0 + 1, 'disabling retires the tokens issued until then');
      const enabled = await store.updateMerchant(m.id, { status: 'active' }, T0 + 2);
      assert.deepEqual([enabled?.status, enabled?.tokensNotBefore], ['active', T0 + 1]);
      const r = await store.rotateMerchantSecret(m.id, {
        clientSecret: 's2',
        previousValidUntil: T0 + 5,
        rotatedAt: T0 + 2,
      });
      assert.deepEqual(
        [r?.clientSecret, r?.previousSecret, r?.previousValidUntil, r?.secretVersion],
        ['s2', 'secret', T0 + 5, 2],
      );
      const page1 = await store.listMerchants({ limit: 1 });
      assert.equal(page1.items.length, 1);
      assert.ok(page1.nextCursor);
      const page2 = await store.listMerchants({ limit: 1, cursor: page1.nextCursor ?? undefined });
      assert.notEqual(page2.items[0]?.id, page1.items[0]?.id);
      assert.ok((await store.countMerchants()) >= 1);
    });

    it('refuses a duplicate client key or partner ID with a UniqueViolation naming it', async () => {
      const m = merchant();
      await store.insertMerchant(m);
      await assert.rejects(
        store.insertMerchant(merchant({ partnerId: m.partnerId })),
        (e: unknown) => e instanceof UniqueViolation && e.constraint.includes('partner_id'),
      );
      await assert.rejects(
        store.insertMerchant(merchant({ clientKey: m.clientKey })),
        (e: unknown) => e instanceof UniqueViolation,
      );
    });

    it('inserts a transaction with its idempotency record, atomically', async () => {
      const m = merchant();
      await store.insertMerchant(m);
      const idem = {
        merchantId: m.id,
        day: '2027-01-15',
        externalId: uid('e'),
        requestHash: 'h',
        httpStatus: 200,
        responseBody: '{"a":1}',
      };
      const t = txn(m.id);
      await store.insertTransaction(t, idem);
      assert.deepEqual(await store.findTransaction(t.referenceNo), t);
      assert.deepEqual(await store.findIdempotency(idem), idem);
      // Same key again: neither the record nor the second transaction is written.
      const t2 = txn(m.id);
      await assert.rejects(
        store.insertTransaction(t2, idem),
        (e: unknown) => e instanceof UniqueViolation && e.constraint.includes('idempotency_keys'),
      );
      assert.equal(await store.findTransaction(t2.referenceNo), undefined);
      await assert.rejects(
        store.insertTransaction(txn(m.id, { partnerReferenceNo: t.partnerReferenceNo })),
        (e: unknown) => e instanceof UniqueViolation && e.constraint.includes('partner_reference_no'),
      );
      assert.deepEqual(await store.findTransactionByPartnerRef(m.id, 'qris', t.partnerReferenceNo), t);
      await assert.rejects(store.insertIdempotency(idem, T0), (e: unknown) => e instanceof UniqueViolation);
    });

    it('changes status only at the expected seq, writing history and the notification, superseding older ones', async () => {
      const m = merchant();
      await store.insertMerchant(m);
      const t = txn(m.id);
      await store.insertTransaction(t);
      const t2 = await change(t, '03', T0 + 1);
      assert.equal(t2?.status, '03');
      assert.equal(t2?.seq, 2);
      assert.equal(await change(t, '00', T0 + 2), undefined, 'a stale seq changes nothing');
      const t3 = await store
        .changeStatus({
          referenceNo: t.referenceNo,
          expectedSeq: 2,
          status: '00',
          statusDesc: 'Success',
          reason: 'paid',
          at: T0 + 3,
          patch: {
            paidAmount: '10000.00',
            paidAt: T0 + 3,
            details: { qrContent: 'x', payer: { payerName: 'A', payerIssuer: '93600009', payerRefId: '1' } },
          },
          notification: { id: uid('n').replace(/\D/g, ''), body: '{"s":"00"}', nextAttemptAt: T0 + 3 },
        })
        .then((r) => r?.txn);
      assert.deepEqual(
        [t3?.status, t3?.paidAmount, t3?.paidAt, (t3?.details.payer as { payerName: string } | undefined)?.payerName],
        ['00', '10000.00', T0 + 3, 'A'],
      );
      const ns = await store.notificationsOf(t.referenceNo);
      assert.deepEqual(
        ns.map((n) => [n.latestStatus, n.state, n.txnSeq]),
        [
          ['03', 'superseded', 2],
          ['00', 'pending', 3],
        ],
      );
      assert.deepEqual(
        (await store.statusHistory(t.referenceNo)).map((h) => h.status),
        ['01', '03', '00'],
      );
    });

    it('claims only the latest notification of a transaction, leases it, and lets only its claimant finish it', async () => {
      const m = merchant();
      await store.insertMerchant(m);
      const t = txn(m.id);
      await store.insertTransaction(t);
      const c1 = (await change(t, '00', T0)) as TransactionRecord;
      const claimed = (await store.claimDueNotifications('w1', T0, 1000, 100)).filter(
        (n) => n.referenceNo === t.referenceNo,
      );
      assert.equal(claimed.length, 1);
      assert.equal(claimed[0]?.state, 'delivering');
      assert.equal(claimed[0]?.claimedBy, 'w1');
      assert.equal(claimed[0]?.leaseUntil, T0 + 1000);
      // Nobody else gets it while the lease holds.
      assert.equal(
        (await store.claimDueNotifications('w2', T0 + 999, 1000, 100)).filter((n) => n.referenceNo === t.referenceNo)
          .length,
        0,
      );
      // A newer change waits while the older one is in flight.
      await change(c1, '04', T0 + 5);
      assert.equal(
        (await store.claimDueNotifications('w2', T0 + 10, 1000, 100)).filter((n) => n.referenceNo === t.referenceNo)
          .length,
        0,
      );
      // The older attempt fails: superseded, not retried; the newer one is claimable now.
      const moved = await store.recordAttempts([attempt(claimed[0] as { id: string }, 'w1', 'error', T0 + 50)]);
      assert.equal(moved[0]?.state, 'superseded');
      const next = (await store.claimDueNotifications('w2', T0 + 20, 1000, 100)).filter(
        (n) => n.referenceNo === t.referenceNo,
      );
      assert.deepEqual(
        next.map((n) => n.latestStatus),
        ['04'],
      );
      // Someone who is not the claimant cannot finish it; the attempt is logged all the same.
      assert.deepEqual(await store.recordAttempts([attempt(next[0] as { id: string }, 'w1', 'acknowledged')]), []);
      const done = await store.recordAttempts([attempt(next[0] as { id: string }, 'w2', 'acknowledged')]);
      assert.equal(done[0]?.state, 'delivered');
      assert.equal(done[0]?.deliveredAt, T0 + 10);
      assert.equal(done[0]?.attemptCount, 1);
      assert.equal((await store.attemptsOf(next[0]?.id ?? '')).length, 2);
    });

    it('claims a notification at birth for the worker that asks, unless another of its transaction is in flight', async () => {
      const m = merchant();
      await store.insertMerchant(m);
      const t = txn(m.id);
      await store.insertTransaction(t);
      const changeClaimed = (from: TransactionRecord, status: TransactionStatus, at: number, workerId: string) =>
        store.changeStatus({
          referenceNo: from.referenceNo,
          expectedSeq: from.seq,
          status,
          statusDesc: null,
          reason: null,
          at,
          notification: {
            id: uid('n').replace(/\D/g, ''),
            body: `{"s":"${status}"}`,
            nextAttemptAt: at,
            claim: { workerId, leaseUntil: at + 1000 },
          },
        });
      const mine = async (w: string, now: number) =>
        (await store.claimDueNotifications(w, now, 1000, 100)).filter((n) => n.referenceNo === t.referenceNo);

      const first = await changeClaimed(t, '03', T0, 'w1');
      assert.ok(first?.claimed, 'nothing else of the transaction is in flight: claimed at birth');
      assert.deepEqual(
        [first.claimed.state, first.claimed.claimedBy, first.claimed.leaseUntil, first.claimed.attemptCount],
        ['delivering', 'w1', T0 + 1000, 0],
      );
      // What the change answers is exactly what it stored.
      assert.deepEqual(await store.findNotification(first.claimed.id), first.claimed);
      assert.equal((await mine('w2', T0 + 999)).length, 0, 'nobody else claims it while its lease holds');

      // A newer change while that one is in flight is not claimed at birth: it waits its turn.
      const second = await changeClaimed(first.txn, '00', T0 + 5, 'w1');
      assert.ok(second);
      assert.equal(second.claimed, undefined);
      const [waiting] = await store.notificationsOf(t.referenceNo).then((ns) => ns.filter((n) => n.txnSeq === 3));
      assert.deepEqual([waiting?.state, waiting?.claimedBy], ['pending', null]);

      // The claimant died: once its lease runs out the older one is retired, the newer one claimed.
      const [takenOver] = await mine('w2', T0 + 1000);
      assert.deepEqual([takenOver?.id, takenOver?.latestStatus], [waiting?.id, '00']);
      assert.equal((await store.findNotification(first.claimed.id))?.state, 'superseded');

      // An older one still waiting (pending) is superseded, and the new one is not claimed at
      // birth either: it goes through the claim like any other.
      const w = txn(m.id);
      await store.insertTransaction(w);
      const waited = (await change(w, '03', T0)) as TransactionRecord;
      const newer = await changeClaimed(waited, '00', T0 + 1, 'w1');
      assert.ok(newer);
      assert.equal(newer.claimed, undefined);
      assert.deepEqual(
        (await store.notificationsOf(w.referenceNo)).map((x) => [x.latestStatus, x.state, x.claimedBy]),
        [
          ['03', 'superseded', null],
          ['00', 'pending', null],
        ],
      );

      // Its claimant finishes a notification claimed at birth like any other.
      const u = txn(m.id);
      await store.insertTransaction(u);
      const paid = await changeClaimed(u, '00', T0, 'w3');
      assert.ok(paid?.claimed);
      const done = await store.recordAttempts([attempt(paid.claimed, 'w3', 'acknowledged')]);
      assert.deepEqual([done[0]?.state, done[0]?.attemptCount], ['delivered', 1]);
    });

    it('re-claims work whose lease ran out, retries on schedule and goes dead after the last', async () => {
      const m = merchant();
      await store.insertMerchant(m);
      const t = txn(m.id);
      await store.insertTransaction(t);
      await change(t, '00', T0);
      const mine = async (w: string, now: number) =>
        (await store.claimDueNotifications(w, now, 1000, 100)).filter((n) => n.referenceNo === t.referenceNo);
      const [first] = await mine('w1', T0);
      assert.ok(first);
      const [again] = await mine('w2', T0 + 1000);
      assert.equal(again?.id, first.id, 'a crashed claimant’s work is taken over');
      const r1 = await store.recordAttempts([attempt(first, 'w2', 'rejected', T0 + 5000)]);
      assert.deepEqual([r1[0]?.state, r1[0]?.nextAttemptAt, r1[0]?.lastError], ['retrying', T0 + 5000, 'HTTP 500']);
      assert.equal((await mine('w3', T0 + 4999)).length, 0);
      const [retry] = await mine('w3', T0 + 5000);
      assert.ok(retry);
      const r2 = await store.recordAttempts([attempt(retry, 'w3', 'rejected', undefined)]);
      assert.equal(r2[0]?.state, 'dead');
      assert.equal(r2[0]?.attemptCount, 2);
      const report = await store.undelivered(m.id, 100);
      assert.deepEqual(
        report.map((n) => n.id),
        [first.id],
      );
      assert.equal(await store.recoverDead(m.id, T0, T0 + 9000), 1);
      assert.equal((await store.findNotification(first.id))?.state, 'pending');
    });

    it('gives back a worker’s claims, replays only the latest, and counts the backlog', async () => {
      const m = merchant();
      await store.insertMerchant(m);
      const t = txn(m.id);
      await store.insertTransaction(t);
      const t2 = (await change(t, '03', T0)) as TransactionRecord;
      await change(t2, '00', T0 + 1);
      const [n] = (await store.claimDueNotifications('w9', T0 + 2, 1000, 100)).filter(
        (x) => x.referenceNo === t.referenceNo,
      );
      assert.equal(n?.latestStatus, '00');
      const before = await store.deliveryBacklog();
      assert.ok(before.undelivered >= 1);
      assert.equal(await store.releaseClaims('w9', T0 + 3, [n?.id ?? '']), 0, 'a row still being sent keeps its lease');
      assert.equal((await store.findNotification(n?.id ?? ''))?.claimedBy, 'w9');
      assert.equal(await store.releaseClaims('w9', T0 + 3), 1);
      const released = await store.findNotification(n?.id ?? '');
      assert.deepEqual([released?.state, released?.claimedBy, released?.nextAttemptAt], ['pending', null, T0 + 3]);
      const [older] = await store.notificationsOf(t.referenceNo);
      assert.equal(await store.replayNotification(older?.id ?? '', T0 + 4), undefined, 'not the latest: no replay');
      assert.equal((await store.replayNotification(n?.id ?? '', T0 + 4))?.state, 'pending');
      const listed = await store.listNotifications({ merchantId: m.id, state: 'pending' }, { limit: 10 });
      assert.deepEqual(
        listed.items.map((x) => x.id),
        [n?.id],
      );
    });

    it('allocates VA numbers per merchant and bank, consecutive in a reservation, never twice', async () => {
      const a = merchant();
      const b = merchant();
      await store.insertMerchant(a);
      await store.insertMerchant(b);
      const a1 = await store.allocateVirtualAccounts(a.id, '555', 1);
      const a2 = await store.allocateVirtualAccounts(a.id, '555', 3);
      const b1 = await store.allocateVirtualAccounts(b.id, '555', 1);
      assert.equal(a1.partnerServiceId, a2.partnerServiceId);
      assert.equal(a1.partnerServiceId.length, 8);
      assert.deepEqual(a1.customerNos, ['000000000001']);
      assert.deepEqual(a2.customerNos, ['000000000002', '000000000003', '000000000004']);
      assert.notEqual(a1.partnerServiceId, b1.partnerServiceId);
      assert.deepEqual(b1.customerNos, ['000000000001']);
      const many = await Promise.all(Array.from({ length: 20 }, () => store.allocateVirtualAccounts(a.id, '556', 5)));
      const numbers = many.flatMap((x) => x.customerNos);
      assert.equal(new Set(numbers).size, 100);
      assert.equal(new Set(many.map((x) => x.partnerServiceId)).size, 1);
    });

    it('finds due expiries and lists transactions by filter', async () => {
      const m = merchant();
      await store.insertMerchant(m);
      const due = txn(m.id, { expiresAt: T0 - 1 });
      const later = txn(m.id, { expiresAt: T0 + 10 ** 9 });
      await store.insertTransaction(due);
      await store.insertTransaction(later);
      const found = (await store.findDueExpiries(T0, 1000)).map((t) => t.referenceNo);
      assert.ok(found.includes(due.referenceNo));
      assert.ok(!found.includes(later.referenceNo));
      const list = await store.listTransactions({ merchantId: m.id, status: '01' }, { limit: 1 });
      assert.equal(list.items.length, 1);
      const rest = await store.listTransactions(
        { merchantId: m.id, status: '01' },
        { limit: 10, cursor: list.nextCursor ?? undefined },
      );
      assert.equal(rest.items.length, 1);
      assert.notEqual(rest.items[0]?.referenceNo, list.items[0]?.referenceNo);
      // Newest first by default, oldest first on request; a time range; any reference.
      const m2 = merchant();
      await store.insertMerchant(m2);
      const a = txn(m2.id, { createdAt: T0 + 1_000, partnerReferenceNo: 'ORDER-A' });
      const b = txn(m2.id, { createdAt: T0 + 2_000, kind: 'va', virtualAccountNo: '   88990001' });
      const c = txn(m2.id, { createdAt: T0 + 3_000 });
      for (const t of [a, b, c]) await store.insertTransaction(t);
      const refs = async (f: Parameters<Store['listTransactions']>[0], limit = 10) => {
        const out: string[] = [];
        let cursor: string | undefined;
        do {
          const p = await store.listTransactions({ merchantId: m2.id, ...f }, { limit, cursor });
          out.push(...p.items.map((t) => t.referenceNo));
          cursor = p.nextCursor ?? undefined;
        } while (cursor);
        return out;
      };
      assert.deepEqual(await refs({}, 1), [c.referenceNo, b.referenceNo, a.referenceNo], 'newest first, paged');
      assert.deepEqual(await refs({ oldestFirst: true }, 2), [a.referenceNo, b.referenceNo, c.referenceNo]);
      assert.deepEqual(await refs({ since: T0 + 2_000, until: T0 + 3_000 }), [b.referenceNo]);
      assert.deepEqual(await refs({ reference: 'ORDER-A' }), [a.referenceNo]);
      assert.deepEqual(await refs({ reference: '   88990001' }), [b.referenceNo]);
      assert.deepEqual(await refs({ reference: c.referenceNo }), [c.referenceNo]);
      assert.deepEqual(await refs({ kind: 'va' }), [b.referenceNo]);
    });

    it('keeps one payout bank at most, and merchants’ bank accounts and payout schedules', async () => {
      assert.equal(await store.findPayoutBank(), undefined);
      const payouts = { sourceAccountNo: '1234567890' };
      const p = provider({ kind: 'bank', bankCode: '701', outbound: OUTBOUND, payouts });
      await store.insertProvider(p);
      assert.deepEqual(await store.findProviderById(p.id), p);
      assert.deepEqual(await store.findPayoutBank(), p);
      const other = provider({ kind: 'bank', bankCode: '702' });
      await assert.rejects(
        store.insertProvider({ ...provider({ kind: 'bank', bankCode: '703' }), payouts }),
        (e: unknown) => e instanceof UniqueViolation && e.constraint.includes('providers_one_payout_bank'),
      );
      await store.insertProvider(other);
      await assert.rejects(
        store.updateProvider(other.id, { payouts }, T0 + 1),
        (e: unknown) => e instanceof UniqueViolation && e.constraint.includes('providers_one_payout_bank'),
      );
      const cleared = await store.updateProvider(p.id, { payouts: null }, T0 + 2);
      assert.equal(cleared?.payouts, undefined);
      assert.deepEqual((await store.updateProvider(other.id, { payouts }, T0 + 3))?.payouts, payouts);
      assert.equal((await store.findPayoutBank())?.id, other.id);
      assert.equal((await store.updateProvider(other.id, { payouts: null }, T0 + 4))?.payouts, undefined);
      assert.equal(await store.findPayoutBank(), undefined);

      const account = {
        bankCode: '014',
        accountNo: '8880123456',
        accountName: 'Budi',
        verifiedName: 'BUDI SANTOSO',
        verifiedAt: T0,
      };
      const m = merchant({ payoutAccount: account, payoutSchedule: 'auto' });
      await store.insertMerchant(m);
      assert.deepEqual(await store.findMerchantById(m.id), m);
      const changed = await store.updateMerchant(m.id, { payoutAccount: null, payoutSchedule: 'manual' }, T0 + 1);
      assert.deepEqual([changed?.payoutAccount, changed?.payoutSchedule], [undefined, undefined]);
      const again = await store.updateMerchant(m.id, { payoutAccount: { ...account, accountNo: '1' } }, T0 + 2);
      assert.deepEqual(again?.payoutAccount, { ...account, accountNo: '1' });
    });

    it('keeps the sandbox bank’s transfers: one per partnerReferenceNo, a pending one ended once', async () => {
      const transfer = (over: Partial<SandboxTransferRecord> = {}): SandboxTransferRecord => ({
        partnerReferenceNo: uid('po'),
        referenceNo: uid('bank'),
        serviceCode: '18',
        beneficiaryBankCode: '014',
        beneficiaryAccountNo: '7770111',
        amount: '50000.00',
        status: '03',
        outcome: '00',
        httpStatus: 202,
        responseBody: '{"responseCode":"2021800"}',
        createdAt: T0,
        updatedAt: T0,
        ...over,
      });
      const t = transfer();
      assert.deepEqual(await store.insertSandboxTransfer(t), t);
      // The same partnerReferenceNo again, whatever else: the first one is kept and answered.
      assert.deepEqual(await store.insertSandboxTransfer({ ...t, referenceNo: uid('bank'), amount: '1.00' }), t);
      const both = await Promise.all([transfer(), transfer()].map((x) => store.insertSandboxTransfer(x)));
      assert.notEqual(both[0]?.partnerReferenceNo, both[1]?.partnerReferenceNo);
      assert.deepEqual(await store.findSandboxTransfer({ partnerReferenceNo: t.partnerReferenceNo }), t);
      assert.deepEqual(await store.findSandboxTransfer({ referenceNo: t.referenceNo }), t);
      assert.equal(await store.findSandboxTransfer({ partnerReferenceNo: 'nope' }), undefined);
      const ended = await store.endSandboxTransfer(t.partnerReferenceNo, T0 + 5);
      assert.deepEqual(ended, { ...t, status: '00', updatedAt: T0 + 5 });
      // Ended once: a later query changes nothing.
      assert.deepEqual(await store.endSandboxTransfer(t.partnerReferenceNo, T0 + 9), ended);
      const failing = transfer({ outcome: '06' });
      await store.insertSandboxTransfer(failing);
      assert.equal((await store.endSandboxTransfer(failing.partnerReferenceNo, T0 + 6))?.status, '06');
      assert.equal(await store.endSandboxTransfer('nope', T0), undefined);
    });

    it('stores, finds, pages, updates and rotates providers, outbound settings included', async () => {
      const p = provider({ outbound: OUTBOUND });
      await store.insertProvider(p);
      await store.insertProvider(provider({ createdAt: T0 + 1 }));
      assert.deepEqual(await store.findProviderById(p.id), p);
      assert.deepEqual(await store.findProviderByClientKey(p.clientKey), p);
      assert.equal(await store.findProviderByClientKey('nope'), undefined);
      const u = await store.updateProvider(p.id, { status: 'disabled', outbound: null, bankCode: '123' }, T0 + 3);
      assert.deepEqual(
        [u?.status, u?.outbound, u?.bankCode, u?.updatedAt, u?.tokensNotBefore],
        ['disabled', null, '123', T0 + 3, T0 + 3],
      );
      const back = await store.updateProvider(p.id, { outbound: OUTBOUND }, T0 + 4);
      assert.deepEqual(back?.outbound, OUTBOUND);
      const r = await store.rotateProviderSecret(p.id, {
        clientSecret: 's2',
        previousValidUntil: T0 + 9,
        rotatedAt: T0 + 5,
      });
      assert.deepEqual(
        [r?.clientSecret, r?.previousSecret, r?.previousValidUntil, r?.secretVersion],
        ['s2', 'psecret', T0 + 9, 2],
      );
      assert.equal(await store.updateProvider('missing', { name: 'x' }, T0), undefined);
      // The banks of a bankCode, never the sandbox one; one active bank per bankCode at most.
      const code = String(100 + (seq % 800));
      assert.deepEqual(await store.findBanks(code), []);
      const bank = (over: Partial<ProviderRecord>) => provider({ kind: 'bank', bankCode: code, ...over });
      await store.insertProvider(bank({ isSandbox: true }));
      await store.insertProvider(provider({ bankCode: code }));
      const retired = bank({ status: 'disabled' });
      await store.insertProvider(retired);
      const owner = bank({ createdAt: T0 + 1 });
      await store.insertProvider(owner);
      assert.deepEqual(await store.findBanks(code), [retired, owner]);
      await assert.rejects(
        store.insertProvider(bank({ createdAt: T0 + 2 })),
        (e: unknown) => e instanceof UniqueViolation && e.constraint.includes('providers'),
      );
      await assert.rejects(
        store.updateProvider(retired.id, { status: 'active' }, T0 + 3),
        (e: unknown) => e instanceof UniqueViolation,
      );
      const page1 = await store.listProviders({ limit: 1 });
      assert.equal(page1.items.length, 1);
      const page2 = await store.listProviders({ limit: 1, cursor: page1.nextCursor ?? undefined });
      assert.notEqual(page2.items[0]?.id, page1.items[0]?.id);
      await assert.rejects(
        store.insertProvider(provider({ clientKey: p.clientKey })),
        (e: unknown) => e instanceof UniqueViolation && e.constraint.includes('client_key'),
      );
    });

    it('keeps a provider’s inbound log newest first, paged', async () => {
      const p = provider();
      await store.insertProvider(p);
      const call = (i: number) => ({
        providerId: p.id,
        at: T0 + i,
        method: 'POST',
        path: '/api/snap/v1.0/transfer-va/payment',
        requestBody: `{"i":${i}}`,
        httpStatus: 200,
        responseCode: i === 2 ? null : '2002500',
        responseBody: '{}',
        durationMs: 1.6,
      });
      await store.recordInbound([call(0)]);
      await store.recordInbound([call(1), call(2)]);
      await store.recordInbound([]);
      const first = await store.listInbound(p.id, { limit: 2 });
      assert.deepEqual(
        first.items.map((c) => [c.at, c.requestBody, c.durationMs, c.responseCode]),
        [
          [T0 + 2, '{"i":2}', 2, null],
          [T0 + 1, '{"i":1}', 2, '2002500'],
        ],
      );
      const rest = await store.listInbound(p.id, { limit: 2, cursor: first.nextCursor ?? undefined });
      assert.deepEqual(
        rest.items.map((c) => c.at),
        [T0],
      );
      assert.equal(rest.nextCursor, null);
    });

    it('commits a bank’s payment flag with the payment it made, once per paymentRequestId', async () => {
      const m = merchant();
      await store.insertMerchant(m);
      const t = txn(m.id, { kind: 'va', virtualAccountNo: uid('va').slice(-20) });
      await store.insertTransaction(t);
      const flag = {
        providerId: 'bank-1',
        paymentRequestId: uid('pay'),
        referenceNo: t.referenceNo,
        httpStatus: 200,
        responseBody: '{"responseCode":"2002500"}',
        createdAt: T0,
      };
      const paid = await store.changeStatus({
        referenceNo: t.referenceNo,
        expectedSeq: 1,
        status: '00',
        statusDesc: 'Success',
        reason: null,
        at: T0,
        notification: { id: uid('n').replace(/\D/g, ''), body: '{}', nextAttemptAt: T0 },
        vaPayment: flag,
      });
      assert.equal(paid?.txn.status, '00');
      assert.deepEqual(await store.findVaPayment('bank-1', flag.paymentRequestId), flag);
      assert.equal(await store.findVaPayment('bank-2', flag.paymentRequestId), undefined);
      // The same flag again fails whole: no history row, no second notification.
      await assert.rejects(
        store.changeStatus({
          referenceNo: t.referenceNo,
          expectedSeq: 2,
          status: '04',
          statusDesc: null,
          reason: null,
          at: T0 + 1,
          notification: { id: uid('n').replace(/\D/g, ''), body: '{}', nextAttemptAt: T0 },
          vaPayment: flag,
        }),
        (e: unknown) => e instanceof UniqueViolation && e.constraint.includes('va_payments'),
      );
      assert.equal((await store.findTransaction(t.referenceNo))?.status, '00');
      assert.equal((await store.notificationsOf(t.referenceNo)).length, 1);
    });

    it('finds a merchant’s refund by its partnerRefundNo', async () => {
      const m = merchant();
      await store.insertMerchant(m);
      const t = txn(m.id, { status: '00', paidAmount: '10000.00' });
      await store.insertTransaction(t);
      const refund = {
        refundNo: uid('RF'),
        referenceNo: t.referenceNo,
        merchantId: m.id,
        partnerRefundNo: 'PRF-1',
        amount: '2500.00',
        reason: null,
        createdAt: T0,
      };
      await store.changeStatus({
        referenceNo: t.referenceNo,
        expectedSeq: 1,
        status: '00',
        statusDesc: 'Success',
        reason: 'refunded in part',
        at: T0,
        patch: { refundedAmount: '2500.00' },
        refund,
      });
      assert.deepEqual(await store.findRefund(m.id, 'PRF-1'), refund);
      assert.equal(await store.findRefund(m.id, 'PRF-2'), undefined);
      assert.equal(await store.findRefund('someone-else', 'PRF-1'), undefined);
    });

    it('counts stored secrets by their head exactly as resealSecrets visits them, writing nothing', async () => {
      const K1 = 'sg1.0000aaaa.';
      const K2 = 'sg1.1111bbbb.';
      await store.insertMerchant(merchant({ clientSecret: `${K1}m1`, previousSecret: `${K2}m0` }));
      await store.insertMerchant(merchant({ clientSecret: 'clear-merchant-secret' }));
      await store.insertProvider(
        provider({
          clientSecret: `${K2}p1`,
          outbound: { ...OUTBOUND, clientSecret: `${K1}o1`, privateKeyPem: `${K2}k1` },
        }),
      );
      await store.insertProvider(
        provider({ clientSecret: `${K1}p2`, outbound: { ...OUTBOUND, clientSecret: `${K1}o2` } }),
      );
      await store.getOrCreateSetting('sealed-setting', () => `${K2}s1`);
      await store.getOrCreateSetting('other-setting', () => `${K1}not-a-secret`);
      const settings = new Set(['sealed-setting', 'missing-setting']);
      const walked: Record<string, number> = {};
      await store.resealSecrets((stored) => {
        const head = stored.slice(0, 12);
        walked[head] = (walked[head] ?? 0) + 1;
        return undefined;
      }, settings);
      const counted = await store.countSecretsByHead(12, settings);
      assert.deepEqual(counted, walked);
      assert.ok(
        (counted['sg1.0000aaaa'] ?? 0) >= 4 && (counted['sg1.1111bbbb'] ?? 0) >= 4,
        'every kind of secret counted',
      );
      assert.deepEqual(await store.countSecretsByHead(12, new Set()), {
        ...walked,
        'sg1.1111bbbb': (walked['sg1.1111bbbb'] ?? 0) - 1,
      });
    });
  });
}

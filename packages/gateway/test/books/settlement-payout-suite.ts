// docs/payouts.md#paying-a-settlement: a settlement paid out through the payout bank (the built-in
// sandbox bank over real HTTP, or a provider whose outbound settings lead through a bank stand-in on
// 127.0.0.1 that loses, delays or holds the answers). Exactly one transfer per settlement whatever
// happens, the books verified after each outcome. Both stores.
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import { createServer, type IncomingMessage, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { createManualClock } from '../../src/clock.ts';
import { nextSlotAfter } from '../../src/settlement-schedule.ts';
import { PostgresStore } from '../../src/store/postgres/postgres-store.ts';
import { SqliteStore } from '../../src/store/sqlite/sqlite-store.ts';
import type { Store } from '../../src/store/store.ts';
import { startGateway, type TestGateway, type TestMerchant } from '../helpers/gateway.ts';
import { registerPayoutBank } from '../helpers/payout-bank.ts';
import { createTestDatabase } from '../helpers/postgres.ts';
import { waitFor } from '../helpers/receiver.ts';
import { authenticate, newExternalId, snapCall } from '../helpers/snap.ts';
import type { StoreUnderTest } from '../helpers/store-under-test.ts';

const API = '/api/snap/v1.0';
const idr = (value: string) => ({ value, currency: 'IDR' });
let seq = 0;

/** Opens stores on one database, as two gateways (or a restarted one) share it. */
async function sharedDatabase(under: StoreUnderTest): Promise<{ open(): Promise<Store>; cleanup(): Promise<void> }> {
  if (under.name === 'SQLite') {
    const dir = mkdtempSync(join(tmpdir(), 'snapgate-payout-'));
    return {
      open: async () => new SqliteStore({ file: join(dir, 'snapgate.db') }),
      cleanup: async () => rmSync(dir, { recursive: true, force: true }),
    };
  }
  const db = await createTestDatabase();
  return {
    async open() {
      const store = new PostgresStore({ connectionString: db.url });
      await store.migrate();
      return store;
    },
    cleanup: db.drop,
  };
}

type Mode = 'pass' | 'lose' | 'slow' | 'hold' | 'drop';

/**
 * A payout bank on 127.0.0.1 that hands every request to the sandbox bank (which takes the transfer)
 * and then, for transfers, answers as told: `pass` the sandbox bank's answer; `lose` a 500 that is not
 * SNAP; `slow` nothing until the gateway has given up; `hold` nothing until `release()`; `drop` a 500
 * without handing the transfer on (a bank that has not booked it yet).
 */
async function startBankStandIn(target: () => string) {
  let mode: Mode = 'pass';
  let transfers = 0;
  const held: Array<() => void> = [];
  const read = async (req: IncomingMessage) => {
    const chunks: Buffer[] = [];
    for await (const c of req) chunks.push(c as Buffer);
    return Buffer.concat(chunks);
  };
  const server: Server = createServer(async (req, res) => {
    const body = await read(req);
    if (mode === 'drop' && /transfer-(intra|inter)bank$/.test(req.url ?? '')) {
      transfers++;
      res.writeHead(500, { 'content-type': 'text/plain' }).end('not booked');
      return;
    }
    const headers: Record<string, string> = {};
    for (const [k, v] of Object.entries(req.headers)) {
      if (typeof v === 'string' && !['host', 'connection', 'content-length', 'transfer-encoding'].includes(k))
        headers[k] = v;
    }
    const answer = await fetch(`${target()}${req.url}`, { method: req.method ?? 'POST', headers, body });
    const text = await answer.text();
    const isTransfer = /transfer-(intra|inter)bank$/.test(req.url ?? '');
    if (isTransfer) transfers++;
    const m = isTransfer ? mode : 'pass';
    if (m === 'lose') {
      res.writeHead(500, { 'content-type': 'text/plain' }).end('upstream broke');
      return;
    }
    if (m === 'slow' || m === 'hold') {
      held.push(() => res.destroy());
      return;
    }
    res.writeHead(answer.status, { 'content-type': answer.headers.get('content-type') ?? 'application/json' });
    res.end(text);
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    setMode(m: Mode) {
      mode = m;
    },
    transfers: () => transfers,
    release() {
      for (const h of held.splice(0)) h();
    },
    async close() {
      this.release();
      server.closeAllConnections();
      await new Promise((r) => server.close(r));
    },
  };
}

export function settlementPayoutSuite(under: StoreUnderTest): void {
  describe(`settlement payouts through the bank (${under.name})`, () => {
    let gw: TestGateway;
    let cleanup: () => Promise<void>;
    const clock = createManualClock(Date.now() + 30_000);

    before(async () => {
      const opened = await under.open();
      cleanup = opened.cleanup;
      gw = await startGateway({
        clock,
        ...(opened.store ? { store: opened.store } : {}),
        env: { SNAPGATE_PAYOUT_APPROVAL_ABOVE: '500000.00', SNAPGATE_UPSTREAM_TIMEOUT_MS: '1000' },
      });
    });
    after(async () => {
      await gw.close();
      await cleanup();
    });

    /** A merchant with a paid QRIS of `amount` settled, its account verified at the sandbox bank. */
    async function settled(
      accountNo: string,
      amount = '100000.00',
      on: TestGateway = gw,
    ): Promise<{ merchantId: string; settlementId: string; net: string }> {
      const m = await on.createMerchant({ fees: { qris: { percent: '0.70' } } });
      const caller = await authenticate(on.url, m);
      const g = await snapCall(on.url, caller, `${API}/qr/qr-mpm-generate`, {
        partnerReferenceNo: `PAYOUT-${++seq}`,
        amount: idr(amount),
      });
      assert.equal(g.status, 200, g.text);
      assert.equal((await on.admin('POST', `/sandbox/qris/${g.body.referenceNo}/pay`, {})).status, 200);
      const account = { bankCode: '999', accountNo, accountName: `Sandbox ${accountNo.slice(-4)}` };
      if (accountNo.endsWith('000')) {
        // The bank answers no inquiry for it: an account closed after it was verified.
        const now = on.clock.now();
        await on.store.updateMerchant(
          m.id,
          { payoutAccount: { ...account, verifiedName: account.accountName.toUpperCase(), verifiedAt: now } },
          now,
        );
      } else {
        const r = await on.admin('PATCH', `/merchants/${m.id}`, { payoutAccount: account });
        assert.equal(r.status, 200, JSON.stringify(r.body));
      }
      const s = await on.admin('POST', '/settlements', { merchantId: m.id });
      assert.equal(s.status, 201, JSON.stringify(s.body));
      return { merchantId: m.id, settlementId: s.body.items[0].id, net: s.body.items[0].net };
    }
    const pay = (id: string, body: unknown = {}, on: TestGateway = gw) =>
      on.admin('POST', `/settlements/${id}/payout`, body);
    const settlement = async (id: string, on: TestGateway = gw) => (await on.admin('GET', `/settlements/${id}`)).body;
    const payout = async (id: string, on: TestGateway = gw) => (await on.admin('GET', `/payouts/${id}`)).body;
    const verified = async (on: TestGateway = gw) => {
      const r = await on.admin('GET', '/ledger/verify');
      assert.deepEqual([r.status, r.body.problems], [200, []]);
      assert.equal(r.body.ok, true);
    };
    const sandboxTransfer = (payoutBody: { partnerReferenceNo: string }) =>
      gw.store.findSandboxTransfer({ partnerReferenceNo: payoutBody.partnerReferenceNo });
    const paidOutEntries = async (settlementId: string) =>
      ((await gw.admin('GET', '/ledger/entries?kind=payout')).body.items as Array<{ settlementId?: string }>).filter(
        (e) => e.settlementId === settlementId,
      ).length;

    it('pays an account the bank pays at once: the settlement paid, the payout entry posted, one transfer', async () => {
      const s = await settled('1234567890');
      const r = await pay(s.settlementId);
      assert.equal(r.status, 202, JSON.stringify(r.body));
      assert.equal(r.body.status, 'paid');
      assert.match(r.body.payoutId, /^po_[0-9a-f]{32}$/);
      assert.ok(r.body.paidAt);
      const p = await payout(r.body.payoutId);
      assert.equal(r.body.bankReference, p.bankReference);
      assert.deepEqual(
        {
          kind: p.kind,
          merchantId: p.merchantId,
          settlementId: p.settlementId,
          amount: p.amount,
          fee: p.fee,
          beneficiary: p.beneficiary,
          state: p.state,
          error: p.error,
        },
        {
          kind: 'settlement',
          merchantId: s.merchantId,
          settlementId: s.settlementId,
          amount: s.net,
          fee: '0.00',
          beneficiary: { bankCode: '999', accountNo: '1234567890', name: 'SANDBOX 7890' },
          state: 'paid',
          error: null,
        },
      );
      assert.deepEqual(
        p.exchanges.map((e: { service: string; status: number }) => [e.service, e.status]),
        [['17', 200]],
      );
      assert.equal(JSON.stringify(p.exchanges).includes('ignature'), false, 'no signature is kept');
      assert.equal((await sandboxTransfer(p))?.status, '00');
      assert.equal(await paidOutEntries(s.settlementId), 1);
      await verified();
      // Paid: again through the bank, or by hand → 409; nothing more is sent.
      assert.equal((await pay(s.settlementId)).status, 409);
      assert.equal((await pay(s.settlementId, { bankReference: 'TRF-X' })).status, 409);
      const listed = await gw.admin('GET', `/payouts?merchantId=${s.merchantId}&kind=settlement&state=paid`);
      assert.deepEqual(
        listed.body.items.map((i: { id: string }) => i.id),
        [p.id],
      );
    });

    it('leaves the settlement open with lastPayoutError when the bank refuses the account (000)', async () => {
      const s = await settled('1234567000');
      const r = await pay(s.settlementId);
      assert.equal(r.status, 202, JSON.stringify(r.body));
      assert.equal(r.body.status, 'open');
      assert.match(r.body.lastPayoutError, /4041711/);
      const p = await payout(r.body.payoutId);
      assert.equal(p.state, 'failed');
      assert.equal(await paidOutEntries(s.settlementId), 0);
      await verified();
      // A failed payout may be asked again: a new payout, a new transfer (refused again here).
      const again = await pay(s.settlementId);
      assert.equal(again.status, 202);
      assert.notEqual(again.body.payoutId, r.body.payoutId);
    });

    it('asks the status of a pending transfer when someone looks: 111 ends paid, 222 ends failed', async () => {
      const paid = await settled('1234567111');
      const failed = await settled('1234567222');
      const a = await pay(paid.settlementId);
      const b = await pay(failed.settlementId);
      assert.deepEqual([a.body.status, b.body.status], ['paying', 'paying']);
      // Paying: a manual marking and another payout are refused alike.
      assert.equal((await pay(paid.settlementId, { bankReference: 'TRF-HAND' })).status, 409);
      assert.equal((await pay(paid.settlementId)).status, 409);
      assert.equal(
        (await gw.admin('GET', `/payouts?state=pending&merchantId=${paid.merchantId}`)).body.items.length,
        1,
      );
      await verified();
      const pa = await payout(a.body.payoutId);
      const pb = await payout(b.body.payoutId);
      assert.deepEqual([pa.state, pb.state], ['paid', 'failed']);
      assert.deepEqual(
        pa.exchanges.map((e: { service: string }) => e.service),
        ['17', '36'],
      );
      assert.equal((await settlement(paid.settlementId)).status, 'paid');
      const reopened = await settlement(failed.settlementId);
      assert.equal(reopened.status, 'open');
      assert.match(reopened.lastPayoutError, /status 06/);
      assert.deepEqual([await paidOutEntries(paid.settlementId), await paidOutEntries(failed.settlementId)], [1, 0]);
      await verified();
    });

    it('asks on the schedule, by the background job on the injected clock', async () => {
      const s = await settled('9999999111');
      const r = await pay(s.settlementId);
      assert.equal(r.body.status, 'paying');
      const checker = gw.gateway.payoutChecker;
      assert.equal(await checker.runOnce(), 0, 'not due before 10 s');
      clock.advance(10_000);
      assert.ok((await checker.runOnce()) >= 1);
      assert.equal((await settlement(s.settlementId)).status, 'paid');
      await verified();
    });

    it('pays out what the settlement schedule makes for a merchant with payoutSchedule auto', async () => {
      const m = await gw.createMerchant({ fees: { qris: { percent: '0.70' } } });
      const patched = await gw.admin('PATCH', `/merchants/${m.id}`, {
        payoutSchedule: 'auto',
        payoutAccount: { bankCode: '014', accountNo: '6600001234', accountName: 'sandbox  1234' },
      });
      assert.equal(patched.status, 200, JSON.stringify(patched.body));
      const caller = await authenticate(gw.url, m);
      const g = await snapCall(gw.url, caller, `${API}/qr/qr-mpm-generate`, {
        partnerReferenceNo: `PAYOUT-${++seq}`,
        amount: idr('20000.00'),
      });
      assert.equal((await gw.admin('POST', `/sandbox/qris/${g.body.referenceNo}/pay`, {})).status, 200);
      // The next slot of the schedule comes (and the clock goes back after, for the SNAP calls that follow).
      const now = clock.now();
      const slotMs = nextSlotAfter(gw.gateway.config.settlementSchedule, now) as number;
      clock.set(slotMs);
      try {
        assert.ok((await gw.gateway.settlementScheduler.runSlot(slotMs)) >= 1);
      } finally {
        clock.set(now + 1_000);
      }
      const made = (await gw.admin('GET', `/settlements?merchantId=${m.id}`)).body.items;
      assert.equal(made.length, 1);
      assert.equal(made[0].status, 'paid', JSON.stringify(made[0]));
      const p = await payout(made[0].payoutId);
      assert.deepEqual([p.requestedBy, p.state, p.exchanges[0].service], ['schedule', 'paid', '18']);
      await verified();
    });

    it('pays a scheduled settlement whose automatic payout was lost, and leaves one the schedule could not pay', async () => {
      const lostOne = await gw.createMerchant({ fees: { qris: { percent: '0.70' } } });
      const unpayable = await gw.createMerchant({ fees: { qris: { percent: '0.70' } } });
      assert.equal(
        (
          await gw.admin('PATCH', `/merchants/${lostOne.id}`, {
            payoutSchedule: 'auto',
            payoutAccount: { bankCode: '014', accountNo: '6600005678', accountName: 'SANDBOX 5678' },
          })
        ).status,
        200,
      );
      assert.equal((await gw.admin('PATCH', `/merchants/${unpayable.id}`, { payoutSchedule: 'auto' })).status, 200);
      for (const m of [lostOne, unpayable]) {
        const caller = await authenticate(gw.url, m);
        const g = await snapCall(gw.url, caller, `${API}/qr/qr-mpm-generate`, {
          partnerReferenceNo: `PAYOUT-${++seq}`,
          amount: idr('30000.00'),
        });
        assert.equal((await gw.admin('POST', `/sandbox/qris/${g.body.referenceNo}/pay`, {})).status, 200);
      }
      // The scheduled settlement of the first is made, and its instance stops before paying it.
      const [lost] = await gw.gateway.operators.settlements.run({ merchantId: lostOne.id, slot: `lost-${++seq}` });
      assert.ok(lost);
      // The second's is made and paid by the schedule's own path, which cannot pay it (no account).
      const [refused] = await gw.gateway.operators.settlements.run({ merchantId: unpayable.id, slot: `lost-${++seq}` });
      assert.ok(refused);
      await gw.gateway.operators.payouts.payAutomatic([refused]);
      assert.match(
        (await settlement(refused.id)).lastPayoutError,
        /automatic payout not made: .*no verified payoutAccount/,
      );
      // Not at once (the schedule may still be paying it), but once a minute has passed.
      await gw.gateway.payoutChecker.runOnce();
      assert.equal((await settlement(lost.id)).status, 'open');
      clock.advance(61_000);
      await gw.gateway.payoutChecker.runOnce();
      const paid = await settlement(lost.id);
      assert.equal(paid.status, 'paid', JSON.stringify(paid));
      assert.equal((await payout(paid.payoutId)).requestedBy, 'schedule');
      assert.equal((await settlement(refused.id)).status, 'open');
      assert.equal((await gw.admin('GET', `/payouts?merchantId=${unpayable.id}`)).body.items.length, 0);
      await verified();
    });

    it('refuses with 409, sending nothing, without a verified account or when its name is not the verified one', async () => {
      const m = await gw.createMerchant();
      const caller = await authenticate(gw.url, m);
      const g = await snapCall(gw.url, caller, `${API}/qr/qr-mpm-generate`, {
        partnerReferenceNo: `PAYOUT-${++seq}`,
        amount: idr('1000.00'),
      });
      await gw.admin('POST', `/sandbox/qris/${g.body.referenceNo}/pay`, {});
      const s = (await gw.admin('POST', '/settlements', { merchantId: m.id })).body.items[0];
      const none = await pay(s.id);
      assert.equal(none.status, 409);
      assert.match(none.body.detail, /no verified payoutAccount/);
      const r = await gw.admin('PATCH', `/merchants/${m.id}`, {
        payoutAccount: { bankCode: '999', accountNo: '5555551234', accountName: 'Somebody Else' },
      });
      assert.equal(r.status, 200, JSON.stringify(r.body));
      const mismatch = await pay(s.id);
      assert.equal(mismatch.status, 409);
      assert.match(mismatch.body.detail, /not the name its bank answered \(SANDBOX 1234\)/);
      assert.equal((await settlement(s.id)).status, 'open');
      assert.equal((await gw.admin('GET', `/payouts?merchantId=${m.id}`)).body.items.length, 0);
    });

    it('lets one of two payouts, or of a payout and a manual marking, win', async () => {
      const twice = await settled('1111111234');
      const both = await Promise.all([pay(twice.settlementId), pay(twice.settlementId)]);
      assert.deepEqual(both.map((r) => r.status).sort(), [202, 409]);
      assert.equal((await gw.admin('GET', `/payouts?merchantId=${twice.merchantId}`)).body.items.length, 1);
      const raced = await settled('2222221234');
      const [bank, hand] = await Promise.all([
        pay(raced.settlementId),
        pay(raced.settlementId, { bankReference: 'TRF-RACE' }),
      ]);
      // Exactly one wins: the transfer (202) or the marking by hand (200); the other is refused.
      assert.ok(
        (bank.status === 202 && hand.status === 409) || (bank.status === 409 && hand.status === 200),
        `${bank.status} ${hand.status}`,
      );
      const after = await settlement(raced.settlementId);
      assert.equal(after.status, 'paid');
      assert.equal(after.bankReference === 'TRF-RACE', hand.status === 200);
      assert.equal(await paidOutEntries(raced.settlementId), 1);
      await verified();
    });

    it('waits for another key above the approval limit: the asking key cannot approve, a read key cannot ask', async () => {
      const keys = async (scope: string) =>
        (await gw.admin('POST', '/admin-keys', { name: `k-${scope}-${++seq}`, scope })).body as {
          key: string;
          name: string;
        };
      const [asker, approver, reader, admin] = [
        await keys('operate'),
        await keys('approve'),
        await keys('read'),
        await keys('admin'),
      ];
      const as = async (key: string, path: string, body: unknown = {}) => {
        const res = await fetch(`${gw.url}/admin/v1${path}`, {
          method: 'POST',
          headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json' },
          body: JSON.stringify(body),
        });
        return { status: res.status, body: await res.json() };
      };
      const big = await settled('3333331234', '1000000.00');
      assert.equal((await as(reader.key, `/settlements/${big.settlementId}/payout`)).status, 403);
      assert.equal(
        (await as(asker.key, `/settlements/${big.settlementId}/payout`, { bankReference: 'TRF-OP' })).status,
        403,
        'operate pays through the bank only',
      );
      const asked = await as(asker.key, `/settlements/${big.settlementId}/payout`);
      assert.equal(asked.status, 202, JSON.stringify(asked.body));
      assert.equal(asked.body.status, 'paying');
      const id = asked.body.payoutId;
      assert.equal((await payout(id)).state, 'awaiting_approval');
      assert.equal((await pay(big.settlementId, { bankReference: 'TRF-WAIT' })).status, 409);
      assert.equal((await as(asker.key, `/payouts/${id}/approve`)).status, 403);
      // An `approve` key may approve or reject, and nothing else: not read, not ask for a payout.
      const look = await fetch(`${gw.url}/admin/v1/payouts/${id}`, {
        headers: { authorization: `Bearer ${approver.key}` },
      });
      assert.equal(look.status, 403);
      assert.equal((await as(approver.key, `/settlements/${big.settlementId}/payout`)).status, 403);
      const approved = await as(approver.key, `/payouts/${id}/approve`);
      assert.equal(approved.status, 200, JSON.stringify(approved.body));
      assert.equal(approved.body.state, 'paid');
      assert.equal((await settlement(big.settlementId)).status, 'paid');
      assert.equal((await as(approver.key, `/payouts/${id}/approve`)).status, 409);
      const other = await settled('4444441234', '1000000.00');
      const second = await as(asker.key, `/settlements/${other.settlementId}/payout`);
      assert.equal((await as(asker.key, `/payouts/${second.body.payoutId}/reject`)).status, 403);
      // An admin key decides too.
      const rejected = await as(admin.key, `/payouts/${second.body.payoutId}/reject`);
      assert.equal(rejected.body.state, 'rejected');
      assert.equal((await settlement(other.settlementId)).status, 'open');
      assert.equal(
        await gw.store.findSandboxTransfer({ partnerReferenceNo: rejected.body.partnerReferenceNo }),
        undefined,
      );
      const audited = async (target: string) =>
        ((await gw.admin('GET', `/audit?target=${target}`)).body.items as Array<{ keyName: string }>).map(
          (e) => e.keyName,
        );
      assert.deepEqual(await audited(id), [approver.name, approver.name], 'the approval, and the one refused as done');
      assert.deepEqual(await audited(second.body.payoutId), [admin.name]);
      // An admin key that asked cannot approve its own payout either (refused by who asked, audited).
      const third = await settled('5555551234', '1000000.00');
      const own = await as(admin.key, `/settlements/${third.settlementId}/payout`);
      const self = await as(admin.key, `/payouts/${own.body.payoutId}/approve`);
      assert.equal(self.status, 403);
      assert.match(self.body.detail, /the key that asked for a payout cannot approve it/);
      assert.deepEqual(await audited(own.body.payoutId), [admin.name]);
      assert.equal((await payout(own.body.payoutId)).state, 'awaiting_approval');
      assert.ok((await audited(big.settlementId)).length >= 1, 'the request is audited');
      await verified();
    });

    describe('when the bank is down', () => {
      let standIn: Awaited<ReturnType<typeof startBankStandIn>>;
      let providerId: string;
      before(async () => {
        standIn = await startBankStandIn(() => gw.url);
        providerId = (await registerPayoutBank(gw, standIn.url, 'Payout Bank Stand-in')).id;
      });
      after(async () => {
        await gw.admin('PATCH', `/providers/${providerId}`, { payouts: null, outbound: null });
        await standIn.close();
      });

      for (const mode of ['lose', 'slow'] as const) {
        it(`settles a transfer whose answer was ${mode === 'lose' ? 'a 5xx' : 'too slow'} by the status query, one transfer at the bank`, async () => {
          const s = await settled(mode === 'lose' ? '7000001234' : '7100001234');
          standIn.setMode(mode);
          const before = standIn.transfers();
          const r = await pay(s.settlementId);
          standIn.setMode('pass');
          standIn.release();
          assert.equal(r.status, 202, JSON.stringify(r.body));
          assert.equal(r.body.status, 'paying');
          const p = (await gw.admin('GET', `/payouts?merchantId=${s.merchantId}`)).body.items[0];
          assert.equal(p.state, 'pending');
          assert.match(p.error, /no clear answer/);
          // The bank took it: asked (36), never sent again.
          clock.advance(10_000);
          await gw.gateway.payoutChecker.runOnce();
          const done = await waitFor('the payout paid', async () => {
            const x = await payout(p.id);
            return x.state === 'paid' && x;
          });
          assert.deepEqual(
            done.exchanges.map((e: { service: string }) => e.service),
            ['18', '36'],
          );
          assert.equal(standIn.transfers() - before, 1);
          assert.equal((await sandboxTransfer(p))?.status, '00');
          assert.equal((await settlement(s.settlementId)).status, 'paid');
          await verified();
        });

        it(`answers a disbursement whose answer was ${mode === 'lose' ? 'a 5xx' : 'too slow'} 202, and ends it by the status query, one transfer`, async () => {
          const m = await gw.createMerchant({ limits: { disbursementDaily: '1000000.00' } });
          const caller = await authenticate(gw.url, m);
          const g = await snapCall(gw.url, caller, `${API}/qr/qr-mpm-generate`, {
            partnerReferenceNo: `PAYOUT-${++seq}`,
            amount: idr('40000.00'),
          });
          assert.equal((await gw.admin('POST', `/sandbox/qris/${g.body.referenceNo}/pay`, {})).status, 200);
          standIn.setMode(mode);
          const before = standIn.transfers();
          const r = await snapCall(gw.url, caller, `${API}/transfer-interbank`, {
            partnerReferenceNo: `DISB-${++seq}`,
            amount: idr('15000.00'),
            beneficiaryAccountName: 'Toko',
            beneficiaryAccountNo: mode === 'lose' ? '7200001234' : '7300001234',
            beneficiaryBankCode: '008',
          });
          standIn.setMode('pass');
          standIn.release();
          assert.deepEqual([r.status, r.body.responseCode], [202, '2021800'], r.text);
          // Held while nobody knows: 40,000.00 less 15,000.00.
          assert.equal((await gw.admin('GET', `/merchants/${m.id}/balance`)).body.pending, '25000.00');
          clock.advance(10_000);
          await gw.gateway.payoutChecker.runOnce();
          const p = (await gw.admin('GET', `/payouts?merchantId=${m.id}&kind=disbursement`)).body.items[0];
          assert.equal(p.state, 'paid', JSON.stringify(p));
          const done = await payout(p.id);
          assert.deepEqual(
            done.exchanges.map((e: { service: string }) => e.service),
            ['18', '36'],
          );
          assert.equal(standIn.transfers() - before, 1, 'never sent again');
          assert.equal((await sandboxTransfer(p))?.status, '00');
          await verified();
        });
      }

      it('keeps a transfer the bank does not know yet pending when asked at once, and fails it only after its lease', async () => {
        const m = await gw.createMerchant({ limits: { disbursementDaily: '1000000.00' } });
        const caller = await authenticate(gw.url, m);
        const g = await snapCall(gw.url, caller, `${API}/qr/qr-mpm-generate`, {
          partnerReferenceNo: `PAYOUT-${++seq}`,
          amount: idr('40000.00'),
        });
        assert.equal((await gw.admin('POST', `/sandbox/qris/${g.body.referenceNo}/pay`, {})).status, 200);
        standIn.setMode('drop');
        const r = await snapCall(gw.url, caller, `${API}/transfer-interbank`, {
          partnerReferenceNo: `DISB-${++seq}`,
          amount: idr('15000.00'),
          beneficiaryAccountName: 'Toko',
          beneficiaryAccountNo: '7400001234',
          beneficiaryBankCode: '008',
        });
        standIn.setMode('pass');
        assert.deepEqual([r.status, r.body.responseCode], [202, '2021800'], r.text);
        const ask = () =>
          snapCall(gw.url, caller, `${API}/transfer/status`, {
            originalPartnerReferenceNo: r.body.partnerReferenceNo,
            serviceCode: '18',
          });
        // Asked at once: not found at the bank, but it may still book it: still on its way, still held.
        assert.equal((await ask()).body.latestTransactionStatus, '03');
        assert.equal((await gw.admin('GET', `/merchants/${m.id}/balance`)).body.pending, '25000.00');
        // Past its lease (twice the upstream timeout and 5 s), not found is final: failed, returned.
        clock.advance(10_000);
        assert.equal((await ask()).body.latestTransactionStatus, '06');
        assert.equal((await gw.admin('GET', `/merchants/${m.id}/balance`)).body.pending, '40000.00');
        await verified();
      });

      it('answers a repeat of a disbursement still on its way (same X-EXTERNAL-ID) with its answer', async () => {
        const m = await gw.createMerchant({ limits: { disbursementDaily: '1000000.00' } });
        const caller = await authenticate(gw.url, m);
        const g = await snapCall(gw.url, caller, `${API}/qr/qr-mpm-generate`, {
          partnerReferenceNo: `PAYOUT-${++seq}`,
          amount: idr('40000.00'),
        });
        assert.equal((await gw.admin('POST', `/sandbox/qris/${g.body.referenceNo}/pay`, {})).status, 200);
        const body = {
          partnerReferenceNo: `DISB-${++seq}`,
          amount: idr('15000.00'),
          beneficiaryAccountName: 'Toko',
          beneficiaryAccountNo: '7500001234',
          beneficiaryBankCode: '008',
        };
        const externalId = newExternalId();
        standIn.setMode('hold');
        const before = standIn.transfers();
        const first = snapCall(gw.url, caller, `${API}/transfer-interbank`, body, { externalId });
        await waitFor('the first at the bank', () => standIn.transfers() === before + 1);
        const second = snapCall(gw.url, caller, `${API}/transfer-interbank`, body, { externalId });
        // The second waits for the first's answer: the bank's is held until released.
        standIn.setMode('pass');
        standIn.release();
        const [a, b] = await Promise.all([first, second]);
        assert.deepEqual([a.status, a.body.responseCode], [202, '2021800'], a.text);
        assert.equal(b.text, a.text, 'the same answer');
        assert.equal(standIn.transfers() - before, 1, 'one transfer');
      });
    });
  });

  describe(`a payout whose gateway stopped before recording the answer (${under.name})`, () => {
    /**
     * A gateway asks for a transfer (`ask`) while the bank takes it and holds the answer; the gateway
     * stops before it records the answer (its database gone from under it). A new gateway on the
     * same database, later, gets `check`: it must settle the transfer by a status query, never by
     * sending it again (`transfers`: counted at the bank).
     */
    async function stoppedMidTransfer(
      ask: (first: TestGateway) => Promise<{ merchantId: string; asked: Promise<unknown> }>,
      check: (second: TestGateway, payoutId: string, transfers: () => number) => Promise<void>,
    ): Promise<void> {
      const db = await sharedDatabase(under);
      const clock = createManualClock(Date.now() + 30_000);
      const env = { SNAPGATE_UPSTREAM_TIMEOUT_MS: '30000' };
      const first = await startGateway({ clock, store: await db.open(), env });
      let second: TestGateway | undefined;
      let standIn: Awaited<ReturnType<typeof startBankStandIn>> | undefined;
      try {
        let target = first.url;
        standIn = await startBankStandIn(() => target);
        await registerPayoutBank(first, standIn.url, 'Payout Bank Stand-in');
        standIn.setMode('hold');
        const { merchantId, asked } = await ask(first);
        // The row committed `sending` and the bank took the transfer; the answer is held.
        await waitFor('the transfer at the bank', () => standIn?.transfers() === 1);
        const sending = await waitFor('the sending row', async () => {
          const items = await first.store.listPayouts({ merchantId }, 10);
          return items[0]?.state === 'sending' && items;
        });
        const payoutId = sending[0]?.id as string;
        // The gateway stops before it records the answer: its database is gone from under it.
        await first.store.close();
        standIn.release();
        await asked;
        await first.gateway.app.close();
        rmSync(first.dir, { recursive: true, force: true });

        clock.advance(90_000);
        second = await startGateway({ clock, store: await db.open(), env });
        target = second.url;
        standIn.setMode('pass');
        assert.equal((await second.store.findPayout(payoutId))?.state, 'sending');
        const bank = standIn;
        await check(second, payoutId, () => bank.transfers());
        const v = await second.admin('GET', '/ledger/verify');
        assert.deepEqual(v.body.problems, []);
      } finally {
        await second?.close();
        await standIn?.close();
        await db.cleanup();
      }
    }

    /** A merchant of `on` with a paid QRIS of 50,000.00. */
    async function paidMerchant(on: TestGateway, settings: Record<string, unknown> = {}) {
      const m = await on.createMerchant(settings);
      const caller = await authenticate(on.url, m);
      const g = await snapCall(on.url, caller, `${API}/qr/qr-mpm-generate`, {
        partnerReferenceNo: `PAYOUT-${++seq}`,
        amount: idr('50000.00'),
      });
      await on.admin('POST', `/sandbox/qris/${g.body.referenceNo}/pay`, {});
      return { m, caller };
    }

    it('is settled by a new gateway on the same database by a status query, never sent again', async () => {
      let settlementId = '';
      await stoppedMidTransfer(
        async (first) => {
          const { m } = await paidMerchant(first);
          const account = { bankCode: '999', accountNo: '8800001234', accountName: 'SANDBOX 1234' };
          assert.equal((await first.admin('PATCH', `/merchants/${m.id}`, { payoutAccount: account })).status, 200);
          settlementId = (await first.admin('POST', '/settlements', { merchantId: m.id })).body.items[0].id;
          const asked = first.admin('POST', `/settlements/${settlementId}/payout`, {}).catch((e: unknown) => e);
          return { merchantId: m.id, asked };
        },
        async (second, payoutId, transfers) => {
          assert.equal(await second.gateway.payoutChecker.runOnce(), 1);
          const p = (await second.admin('GET', `/payouts/${payoutId}`)).body;
          assert.equal(p.state, 'paid', JSON.stringify(p));
          assert.deepEqual(
            p.exchanges.map((e: { service: string }) => e.service),
            ['36'],
          );
          assert.equal(transfers(), 1, 'never sent again');
          assert.equal((await second.admin('GET', `/settlements/${settlementId}`)).body.status, 'paid');
        },
      );
    });

    it('settles a disbursement the same way: the merchant’s status query asks the bank, one transfer, a callback', async () => {
      let partnerReferenceNo = '';
      let merchant: TestMerchant | undefined;
      await stoppedMidTransfer(
        async (first) => {
          const { m, caller } = await paidMerchant(first, { limits: { disbursementDaily: '1000000.00' } });
          merchant = m;
          partnerReferenceNo = `DISB-${++seq}`;
          const asked = snapCall(first.url, caller, `${API}/transfer-interbank`, {
            partnerReferenceNo,
            amount: idr('20000.00'),
            beneficiaryAccountName: 'Toko',
            beneficiaryAccountNo: '8800005678',
            beneficiaryBankCode: '014',
          }).catch((e: unknown) => e);
          return { merchantId: m.id, asked };
        },
        async (second, payoutId, transfers) => {
          const caller = await authenticate(second.url, merchant as TestMerchant);
          const status = await snapCall(second.url, caller, `${API}/transfer/status`, {
            originalPartnerReferenceNo: partnerReferenceNo,
            serviceCode: '18',
          });
          assert.equal(status.status, 200, status.text);
          assert.equal(status.body.latestTransactionStatus, '00');
          const p = (await second.admin('GET', `/payouts/${payoutId}`)).body;
          assert.deepEqual(
            [p.kind, p.state, p.exchanges.map((e: { service: string }) => e.service)],
            ['disbursement', 'paid', ['36']],
          );
          assert.equal(transfers(), 1, 'never sent again');
          const b = (await second.admin('GET', `/merchants/${merchant?.id}/balance`)).body;
          assert.equal(b.pending, '30000.00', '50,000.00 collected (no MDR under 500,000.00) less 20,000.00 sent');
          // Its merchant never had an answer: the end is in the outbox for it.
          const told = await second.store.notificationsOf(p.referenceNo);
          assert.deepEqual(
            told.map((n) => [n.kind, n.latestStatus]),
            [['transfer', '00']],
          );
        },
      );
    });
  });
}

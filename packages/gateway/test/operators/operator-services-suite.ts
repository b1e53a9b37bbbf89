// The operator services behind the admin API, the console and the merchant portal, on a real
// store: each action is written once, a merchant (the portal's caller) reaches only its own
// records, and the admin API answers what the service decides.
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import type { OperatorServices } from '../../src/app.ts';
import { ReplayRefused } from '../../src/delivery/notification-operations.ts';
import { type Caller, merchantCaller, operatorCaller } from '../../src/operators/caller.ts';
import type { NotificationRecord, TransactionRecord } from '../../src/records/records.ts';
import { ADMIN_TOKEN, startGateway, type TestGateway, type TestMerchant } from '../helpers/gateway.ts';
import type { StoreUnderTest } from '../helpers/store-under-test.ts';

let seq = 0;
const unique = () => `${Date.now()}${String(++seq).padStart(4, '0')}`;

const operator: Caller = operatorCaller({ id: 'key_services_test', name: 'services-test', scope: 'admin' });

export function operatorServicesSuite(under: StoreUnderTest): void {
  describe(`operator services (${under.name})`, () => {
    let gw: TestGateway;
    let cleanup: () => Promise<void>;
    let ops: OperatorServices;
    let a: TestMerchant;
    let b: TestMerchant;

    before(async () => {
      const opened = await under.open();
      cleanup = opened.cleanup;
      gw = await startGateway(opened.store ? { store: opened.store } : {});
      ops = gw.gateway.operators;
      a = await gw.createMerchant({ name: 'Merchant A' });
      b = await gw.createMerchant({ name: 'Merchant B' });
    });
    after(async () => {
      await gw.close();
      await cleanup();
    });

    /** A QRIS of `merchantId` moved through `statuses`, each change with its notification. */
    async function transaction(merchantId: string, statuses: Array<'00' | '03' | '06'>, dueAt = Date.now()) {
      const now = Date.now();
      let t: TransactionRecord = {
        referenceNo: `OPS${unique()}`,
        merchantId,
        kind: 'qris',
        partnerReferenceNo: `ORDER-${unique()}`,
        status: '01',
        statusDesc: null,
        seq: 1,
        amount: '10000.00',
        currency: 'IDR',
        paidAmount: null,
        refundedAmount: '0.00',
        feeAmount: '0.00',
        virtualAccountNo: null,
        billNumber: Number(unique().slice(-12)),
        expiresAt: now + 3_600_000,
        paidAt: null,
        details: { qrContent: '' },
        createdAt: now,
        updatedAt: now,
      };
      await gw.store.insertTransaction(t);
      for (const status of statuses) {
        const changed = await gw.store.changeStatus({
          referenceNo: t.referenceNo,
          expectedSeq: t.seq,
          status,
          statusDesc: null,
          reason: null,
          at: Date.now(),
          notification: { id: unique(), body: `{"latestTransactionStatus":"${status}"}`, nextAttemptAt: dueAt },
        });
        assert.ok(changed);
        t = changed.txn;
      }
      const notifications = await gw.store.notificationsOf(t.referenceNo);
      return { t, notifications, latest: notifications.at(-1) as NotificationRecord };
    }

    /** A transaction whose only notification died: its one attempt failed with no retry left. */
    async function dead(merchantId: string) {
      // Due at the epoch's second millisecond: no other notification is due when it is claimed.
      const made = await transaction(merchantId, ['00'], 1);
      const worker = `kill-${unique()}`;
      const claimed = await gw.store.claimDueNotifications(worker, 2, 60_000, 10);
      assert.deepEqual(
        claimed.map((n) => n.id),
        [made.latest.id],
      );
      await gw.store.recordAttempts([
        {
          notificationId: made.latest.id,
          workerId: worker,
          startedAt: Date.now(),
          url: 'http://127.0.0.1:1/callback',
          requestHeaders: {},
          responseStatus: 500,
          responseBody: 'no',
          durationMs: 1,
          outcome: 'rejected',
          error: 'HTTP 500',
          nextAttemptAt: undefined,
          finishedAt: Date.now(),
        },
      ]);
      assert.equal((await gw.store.findNotification(made.latest.id))?.state, 'dead');
      return made;
    }

    it("refuses through the portal path to replay another merchant's notification, as one that does not exist", async () => {
      const { latest } = await dead(b.id);
      await assert.rejects(ops.notifications.replay(merchantCaller(a.id), latest.id), {
        name: 'DomainError',
        kind: 'not-found',
        message: 'notification not found',
      });
      assert.equal((await gw.store.findNotification(latest.id))?.state, 'dead', 'left as it was');
      await assert.rejects(ops.notifications.show(merchantCaller(a.id), latest.id), { kind: 'not-found' });
      const own = await ops.notifications.replay(merchantCaller(b.id), latest.id);
      assert.equal(own.state, 'pending');
      assert.equal((await ops.notifications.show(operator, latest.id)).attempts.length, 1);
    });

    it('refuses to replay a notification a newer one superseded, the same through the admin API and the service', async () => {
      const { notifications } = await transaction(a.id, ['03', '00']);
      const [older, newer] = notifications as [NotificationRecord, NotificationRecord];
      const refusal = await ops.notifications.replay(operator, older.id).then(
        () => assert.fail('replayed a superseded notification'),
        (e: unknown) => e,
      );
      assert.ok(refusal instanceof ReplayRefused);
      assert.equal(refusal.notificationId, older.id);
      const api = await gw.admin('POST', `/notifications/${older.id}/replay`);
      assert.deepEqual({ status: api.status, detail: api.body.detail }, { status: 409, detail: refusal.message });
      const missing = await gw.admin('POST', '/notifications/999999999999/replay');
      await assert.rejects(ops.notifications.replay(operator, '999999999999'), { message: missing.body.detail });
      assert.equal(missing.status, 404);

      const replayed = await ops.notifications.replay(operator, newer.id);
      const again = await gw.admin('POST', `/notifications/${newer.id}/replay`);
      assert.equal(again.status, 202);
      assert.deepEqual([replayed.id, replayed.state], [again.body.id, again.body.state]);
    });

    it("recovers a merchant's dead notifications, only that merchant's, and a merchant only its own", async () => {
      const since = Date.now() - 1000;
      const ofA = await dead(a.id);
      const ofB = await dead(b.id);
      await assert.rejects(ops.notifications.recover(merchantCaller(a.id), b.id, since), { kind: 'not-found' });
      await assert.rejects(ops.notifications.recover(operator, 'no-such-merchant', since), {
        message: 'merchant not found',
      });
      assert.equal(await ops.notifications.recover(merchantCaller(a.id), a.id, since), 1);
      assert.equal((await gw.store.findNotification(ofA.latest.id))?.state, 'pending');
      assert.equal((await gw.store.findNotification(ofB.latest.id))?.state, 'dead', "B's untouched");
      const api = await gw.admin('POST', `/merchants/${b.id}/recover`, { since: new Date(since).toISOString() });
      assert.deepEqual([api.status, api.body], [200, { recovered: 1 }]);
      assert.equal((await gw.store.findNotification(ofB.latest.id))?.state, 'pending');
    });

    it('confines a merchant to its own transactions; an operator reads what the admin API answers', async () => {
      const { t } = await transaction(b.id, ['00']);
      await assert.rejects(ops.transactions.detail(merchantCaller(a.id), t.referenceNo), {
        kind: 'not-found',
        message: 'transaction not found',
      });
      const detail = await ops.transactions.detail(operator, t.referenceNo);
      const api = await gw.admin('GET', `/transactions/${t.referenceNo}`);
      assert.equal(api.status, 200);
      assert.deepEqual(
        detail.notifications.map((n) => n.id),
        api.body.notifications.map((n: { id: string }) => n.id),
      );
      assert.deepEqual(
        detail.history.map((h) => h.status),
        api.body.statusHistory.map((h: { status: string }) => h.status),
      );
      // Asking for another merchant's transactions gives a merchant its own.
      const found = await ops.transactions.search(merchantCaller(a.id), { merchantId: b.id }, 500, 0);
      assert.ok(found.length > 0);
      assert.ok(found.every((x) => x.merchantId === a.id));
      const listed = await ops.notifications.list(merchantCaller(a.id), { merchantId: b.id }, { limit: 500 });
      assert.ok(listed.items.every((n) => n.merchantId === a.id));
    });

    it('sends a test callback: the merchant’s latest notification again, or says there is none yet', async () => {
      const fresh = await gw.createMerchant({ name: 'Merchant Without Notifications' });
      await assert.rejects(ops.notifications.replayLatest(merchantCaller(fresh.id), fresh.id), {
        kind: 'conflict',
        message: /no notification to send yet/,
      });
      const { latest } = await transaction(fresh.id, ['00']);
      // A merchant caller's own merchant counts, whatever id is asked for.
      const sent = await ops.notifications.replayLatest(merchantCaller(fresh.id), a.id);
      assert.equal(sent.id, latest.id);
    });

    it('lets a merchant change only its own callback URLs', async () => {
      await assert.rejects(
        ops.merchants.update(b.id, { callbackBaseUrl: 'http://127.0.0.1:9' }, merchantCaller(a.id)),
        { kind: 'not-found', message: 'merchant not found' },
      );
      await assert.rejects(ops.merchants.update(a.id, { name: 'Renamed' }, merchantCaller(a.id)), {
        kind: 'invalid',
        problems: ['name: not changed from the portal'],
      });
      const changed = await ops.merchants.update(a.id, { callbackBaseUrl: 'http://127.0.0.1:9' }, merchantCaller(a.id));
      assert.equal(changed.callbackBaseUrl, 'http://127.0.0.1:9');
      assert.equal((await ops.merchants.update(a.id, { name: 'Renamed' }, operator)).name, 'Renamed');
      // Its callback token URL only where its callbacks are signed with a SNAP B2B token.
      await assert.rejects(
        ops.merchants.update(a.id, { callbackTokenUrl: 'http://127.0.0.1:9/token' }, merchantCaller(a.id)),
        { kind: 'invalid', problems: ['callbackTokenUrl: only with callbackSignature snap-b2b'] },
      );
      await ops.merchants.update(a.id, { callbackSignature: 'snap-b2b' }, operator);
      const tokenUrl = 'http://127.0.0.1:9/token';
      const b2b = await ops.merchants.update(a.id, { callbackTokenUrl: tokenUrl }, merchantCaller(a.id));
      assert.equal(b2b.callbackTokenUrl, tokenUrl);
    });

    it('makes a portal link for an active merchant only, the same through the admin API and the service', async () => {
      const c = await gw.createMerchant({ name: 'Merchant C' });
      const link = await ops.sessions.portalLink(c.id);
      const token = new URL(link.url).searchParams.get('token') ?? undefined;
      const check = await ops.sessions.checkPortalLink(token);
      assert.deepEqual([check.outcome, check.outcome === 'valid' && check.merchant.id], ['valid', c.id]);
      const portal = await ops.sessions.enterPortal(token);
      assert.ok(portal.outcome === 'entered', portal.outcome);
      assert.equal((await ops.sessions.portalSessionOf(portal.token))?.merchant.id, c.id);
      assert.equal((await ops.sessions.enterPortal(token)).outcome, 'used', 'a link signs in once');
      await ops.sessions.endPortalSessions(c.id);
      assert.equal(await ops.sessions.portalSessionOf(portal.token), undefined, 'signed out on the server');

      assert.equal((await gw.admin('PATCH', `/merchants/${c.id}`, { status: 'disabled' })).status, 200);
      const refusal = await ops.sessions.portalLink(c.id).then(
        () => assert.fail('a link for a disabled merchant'),
        (e: unknown) => e as Error,
      );
      const api = await gw.admin('POST', `/merchants/${c.id}/portal-link`);
      assert.deepEqual([api.status, api.body.detail], [409, refusal.message]);
      const missing = await gw.admin('POST', '/merchants/no-such-merchant/portal-link');
      assert.equal(missing.status, 404);
      await assert.rejects(ops.sessions.portalLink('no-such-merchant'), { message: missing.body.detail });
    });

    it('never revokes the last admin key, the same through the admin API and the service; sessions end on log-out', async () => {
      const keys = await ops.adminKeys.list();
      const admins = keys.filter((k) => k.scope === 'admin' && k.revokedAt === null);
      assert.equal(admins.length, 1, 'the bootstrap key only');
      const last = admins[0]?.id as string;
      const refusal = await ops.adminKeys.revoke(last).then(
        () => assert.fail('revoked the last admin key'),
        (e: unknown) => e as Error,
      );
      const api = await gw.admin('POST', `/admin-keys/${last}/revoke`);
      assert.deepEqual([api.status, api.body.detail], [409, refusal.message]);

      const made = await ops.adminKeys.create({ name: 'services-reader', scope: 'read' });
      await assert.rejects(ops.adminKeys.create({ name: 'services-reader', scope: 'read' }), { kind: 'conflict' });
      assert.equal((await ops.adminKeys.authenticate(made.key))?.id, made.record.id);

      const session = await ops.sessions.signIn(ADMIN_TOKEN);
      assert.ok(session);
      assert.equal((await ops.sessions.operatorOf(session.token))?.key.id, last);
      assert.equal(await ops.sessions.signIn('not-a-key'), undefined);
      await ops.sessions.signOut(last);
      assert.equal(await ops.sessions.operatorOf(session.token), undefined, 'ended on the server');

      assert.equal((await ops.adminKeys.revoke(made.record.id)).revokedAt !== null, true);
      assert.equal(await ops.adminKeys.authenticate(made.key), undefined, 'revoked at once');
    });
  });
}

// Hardening round 2, finding 1 (its cause): an admin action must not exist without its audit row.
// The row is written before the action runs; if it cannot be, the action does not run. How the
// action ended is appended once it is answered; a row without it is an action the gateway stopped
// during (docs/admin-api.md#audit-log).
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import type { Store } from '../../src/store/store.ts';
import { ADMIN_TOKEN, startGateway, type TestGateway } from '../helpers/gateway.ts';
import type { StoreUnderTest } from '../helpers/store-under-test.ts';

export function auditFirstSuite(under: StoreUnderTest): void {
  describe(`the audit row comes before the admin action (${under.name})`, () => {
    let gw: TestGateway;
    let cleanup: () => Promise<void>;
    before(async () => {
      const opened = await under.open();
      cleanup = opened.cleanup;
      gw = await startGateway(opened.store ? { store: opened.store } : {});
    });
    after(async () => {
      await gw.close();
      await cleanup();
    });

    const merchantCount = async () => (await gw.admin('GET', '/merchants?limit=500')).body.items.length as number;

    it('records who did what before it is done, and how it ended once answered', async () => {
      const created = await gw.admin('POST', '/merchants', { name: 'Audited First' });
      assert.equal(created.status, 201);
      const [row] = (await gw.admin('GET', '/audit?limit=1')).body.items;
      assert.equal(row.action, 'POST /admin/v1/merchants');
      assert.equal(row.httpStatus, 201);
      assert.equal(row.target, created.body.id, 'the new merchant’s id, learnt from the answer');
      assert.equal(row.after.name, 'Audited First');
      assert.equal(row.after.clientSecret, '<redacted>');
      const byTarget = await gw.admin('GET', `/audit?target=${created.body.id}`);
      assert.equal(byTarget.body.items[0]?.id, row.id);
    });

    it('does not act when the row cannot be written', async () => {
      const store = gw.store as Store & { appendAudit: Store['appendAudit'] };
      const original = store.appendAudit;
      const before = await merchantCount();
      store.appendAudit = async () => {
        throw new Error('the audit table is gone');
      };
      try {
        const r = await gw.admin('POST', '/merchants', { name: 'Never Made' });
        assert.equal(r.status, 500);
        assert.equal(JSON.stringify(r.body).includes('audit table'), false, 'never the database’s own words');
      } finally {
        store.appendAudit = original;
      }
      assert.equal(await merchantCount(), before, 'nothing was created');
    });

    it('keeps the row of an action whose ending could not be recorded (as after a crash), status 0', async () => {
      const store = gw.store as Store & { appendAuditOutcome: Store['appendAuditOutcome'] };
      const original = store.appendAuditOutcome;
      store.appendAuditOutcome = async () => {
        throw new Error('crashed before the outcome');
      };
      let created: { status: number; body: { id: string } };
      try {
        created = await gw.admin('POST', '/merchants', { name: 'Made, Ending Unknown' });
      } finally {
        store.appendAuditOutcome = original;
      }
      assert.equal(created.status, 201, 'the action was done and recorded: its answer stands');
      const [row] = (await gw.admin('GET', '/audit?limit=2')).body.items.filter(
        (x: { action: string }) => x.action === 'POST /admin/v1/merchants',
      );
      assert.equal(row.httpStatus, 0, 'recorded before it ran; how it ended is not known');
      assert.equal(row.request.name, 'Made, Ending Unknown');
    });

    it('in the console too: a form whose row cannot be written does not act, and a done one names its action', async () => {
      // Signed in as a browser is: the log-in page's cookie and token, then the post.
      const page = await fetch(`${gw.url}/console/login`);
      const pre = (page.headers.get('set-cookie') ?? '').split(';')[0] as string;
      const preCsrf = /name="_csrf" value="([^"]+)"/.exec(await page.text())?.[1] ?? '';
      const form = (fields: Record<string, string>) => new URLSearchParams(fields).toString();
      const login = await fetch(`${gw.url}/console/login`, {
        method: 'POST',
        redirect: 'manual',
        headers: { 'content-type': 'application/x-www-form-urlencoded', cookie: pre, origin: gw.url },
        body: form({ _csrf: preCsrf, key: ADMIN_TOKEN }),
      });
      const session = (login.headers.get('set-cookie') ?? '').split(';')[0] as string;
      const merchants = await fetch(`${gw.url}/console/merchants`, { headers: { cookie: session } });
      const csrf = /name="_csrf" value="([^"]+)"/.exec(await merchants.text())?.[1] ?? '';
      const create = (name: string) =>
        fetch(`${gw.url}/console/merchants`, {
          method: 'POST',
          redirect: 'manual',
          headers: { 'content-type': 'application/x-www-form-urlencoded', cookie: session, origin: gw.url },
          body: form({ _csrf: csrf, name }),
        });

      const store = gw.store as Store & { appendAudit: Store['appendAudit'] };
      const original = store.appendAudit;
      const count = await merchantCount();
      store.appendAudit = async () => {
        throw new Error('the audit table is gone');
      };
      try {
        assert.equal((await create('Console Never Made')).status, 500);
      } finally {
        store.appendAudit = original;
      }
      assert.equal(await merchantCount(), count, 'nothing was created');

      const made = await create('Console Made');
      assert.ok(made.status < 400, `${made.status}`);
      const [row] = (await gw.admin('GET', '/audit?limit=1')).body.items;
      assert.equal(row.action, 'console: create merchant');
      assert.equal(row.request.name, 'Console Made');
      assert.notEqual(row.httpStatus, 0);

      // A form's row is written before the form is read: what it changed, before and after, comes
      // with its outcome, and reads as the row's own.
      const id = row.target as string;
      const edited = await fetch(`${gw.url}/console/merchants/${id}`, {
        method: 'POST',
        redirect: 'manual',
        headers: { 'content-type': 'application/x-www-form-urlencoded', cookie: session, origin: gw.url },
        body: form({ _csrf: csrf, name: 'Console Renamed' }),
      });
      assert.equal(edited.status, 303);
      const [edit] = (await gw.admin('GET', `/audit?limit=1&target=${id}`)).body.items;
      assert.equal(edit.action, 'console: edit merchant');
      assert.equal(edit.before?.name, 'Console Made');
      assert.equal(edit.after?.name, 'Console Renamed');
      assert.equal(edit.before?.clientSecret, undefined, 'never a secret');
    });
  });
}

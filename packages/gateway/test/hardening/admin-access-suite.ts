// Named admin keys with scopes, revocation, and the audit log of every state-changing action.
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import type { SqliteStore } from '../../src/store/sqlite/sqlite-store.ts';
import { ADMIN_TOKEN, startGateway, type TestGateway } from '../helpers/gateway.ts';
import type { StoreUnderTest } from '../helpers/store-under-test.ts';

export function adminAccessSuite(under: StoreUnderTest): void {
  describe(`admin keys, scopes and the audit log (${under.name})`, () => {
    let gw: TestGateway;
    let cleanup: () => Promise<void>;
    const keys: Record<string, { id: string; key: string }> = {};

    /** An admin API call made with a given key. */
    async function as(key: string, method: string, path: string, body?: unknown) {
      const res = await fetch(`${gw.url}/admin/v1${path}`, {
        method,
        headers: {
          authorization: `Bearer ${key}`,
          ...(body === undefined ? {} : { 'content-type': 'application/json' }),
        },
        body: body === undefined ? undefined : JSON.stringify(body),
      });
      const text = await res.text();
      return { status: res.status, body: text ? JSON.parse(text) : undefined };
    }

    before(async () => {
      const opened = await under.open();
      cleanup = opened.cleanup;
      gw = await startGateway({ dispatch: true, ...(opened.store ? { store: opened.store } : {}) });
      for (const [name, scope] of [
        ['ops-anna', 'admin'],
        ['ops-budi', 'operate'],
        ['auditor-citra', 'read'],
      ] as const) {
        const r = await as(ADMIN_TOKEN, 'POST', '/admin-keys', { name, scope });
        assert.equal(r.status, 201, JSON.stringify(r.body));
        assert.match(r.body.key, /^sgk_[A-Za-z0-9_-]{32}$/);
        assert.equal(r.body.scope, scope);
        keys[name] = { id: r.body.id, key: r.body.key };
      }
    });
    after(async () => {
      await gw.close();
      await cleanup();
    });

    it('shows a key once, keeps only its hash, and lists keys without them', async () => {
      const list = await as(ADMIN_TOKEN, 'GET', '/admin-keys');
      assert.deepEqual(
        list.body.items.map((k: { name: string; scope: string }) => [k.name, k.scope]),
        [
          ['bootstrap', 'admin'],
          ['ops-anna', 'admin'],
          ['ops-budi', 'operate'],
          ['auditor-citra', 'read'],
        ],
      );
      assert.equal(JSON.stringify(list.body).includes(keys['ops-anna']?.key as string), false);
      assert.equal((await as(ADMIN_TOKEN, 'POST', '/admin-keys', { name: 'ops-anna', scope: 'read' })).status, 409);
      assert.equal((await as(ADMIN_TOKEN, 'POST', '/admin-keys', { name: 'x', scope: 'root' })).status, 400);
    });

    it('refuses each scope outside its rights, and records the last use', async () => {
      const read = keys['auditor-citra']?.key as string;
      const operate = keys['ops-budi']?.key as string;
      const m = await gw.createMerchant();
      const qr = await as(ADMIN_TOKEN, 'GET', `/merchants/${m.id}`);
      assert.equal(qr.status, 200);
      // read: looks only.
      assert.equal((await as(read, 'GET', '/merchants')).status, 200);
      assert.equal((await as(read, 'GET', '/audit')).status, 200);
      for (const [method, path, body] of [
        ['PATCH', `/merchants/${m.id}`, { name: 'x' }],
        ['POST', '/notifications/n1/replay', undefined],
        ['POST', '/sandbox/qris/R1/pay', {}],
        ['POST', '/admin-keys', { name: 'sneaky', scope: 'admin' }],
        ['POST', '/keys/rotate', undefined],
      ] as const) {
        const r = await as(read, method, path, body);
        assert.equal(r.status, 403, `${method} ${path}`);
        assert.match(r.body.detail, /has the read scope; this needs (operate|admin)/);
      }
      // operate: deliveries and the sandbox, not merchants, providers or keys.
      assert.equal((await as(operate, 'POST', '/notifications/n1/replay')).status, 404, 'allowed, then not found');
      assert.equal((await as(operate, 'POST', '/sandbox/qris/NOPE/pay', {})).status, 404);
      for (const [method, path, body] of [
        ['PATCH', `/merchants/${m.id}`, { name: 'x' }],
        ['POST', '/merchants', { name: 'x' }],
        ['POST', '/providers', { name: 'B', kind: 'bank', bankCode: '014' }],
        ['POST', `/admin-keys/${keys['auditor-citra']?.id}/revoke`, undefined],
      ] as const) {
        assert.equal((await as(operate, method, path, body)).status, 403, `${method} ${path}`);
      }
      // admin: everything.
      assert.equal(
        (await as(keys['ops-anna']?.key as string, 'PATCH', `/merchants/${m.id}`, { name: 'y' })).status,
        200,
      );
      const listed = (await as(ADMIN_TOKEN, 'GET', '/admin-keys')).body.items;
      const citra = listed.find((k: { name: string }) => k.name === 'auditor-citra');
      assert.match(citra.lastUsedAt, /Z$/);
      assert.equal(listed.find((k: { name: string }) => k.name === 'bootstrap').revokedAt, null);
    });

    it('records a callback-URL change with the key’s name, before and after, secrets redacted', async () => {
      const anna = keys['ops-anna']?.key as string;
      const m = await gw.createMerchant({ callbackBaseUrl: 'http://127.0.0.1:9/old' });
      const changed = await as(anna, 'PATCH', `/merchants/${m.id}`, { callbackBaseUrl: 'http://127.0.0.1:9/new' });
      assert.equal(changed.status, 200);
      const rotated = await as(anna, 'POST', `/merchants/${m.id}/rotate-secret`, { overlapSec: 60 });
      assert.equal(rotated.status, 200);
      const log = await as(keys['auditor-citra']?.key as string, 'GET', `/audit?target=${m.id}`);
      assert.equal(log.status, 200);
      const [rotation, change, creation] = log.body.items;
      assert.equal(change.keyName, 'ops-anna');
      assert.equal(change.action, 'PATCH /admin/v1/merchants/:id');
      assert.equal(change.address, '127.0.0.1');
      assert.equal(change.httpStatus, 200);
      assert.match(change.at, /Z$/);
      assert.deepEqual(change.request, { callbackBaseUrl: 'http://127.0.0.1:9/new' });
      assert.equal(change.before.callbackBaseUrl, 'http://127.0.0.1:9/old');
      assert.equal(change.after.callbackBaseUrl, 'http://127.0.0.1:9/new');
      assert.equal(rotation.after.clientSecret, '<redacted>');
      assert.equal(creation.keyName, 'bootstrap');
      assert.equal(creation.after.clientSecret, '<redacted>');
      const everything = JSON.stringify((await as(ADMIN_TOKEN, 'GET', '/audit?limit=500')).body);
      assert.equal(everything.includes(rotated.body.clientSecret), false, 'no secret in the audit log');
      assert.equal(everything.includes(m.clientSecret), false);
      assert.equal(everything.includes(keys['ops-anna']?.key as string), false, 'no admin key either');
      if (gw.store.kind === 'sqlite') {
        const db = (gw.store as SqliteStore).db;
        assert.throws(() => db.prepare('UPDATE audit_log SET key_name = ?').run('someone-else'), /append-only/);
        assert.throws(() => db.prepare('DELETE FROM audit_log').run(), /append-only/);
      }
    });

    it('redacts secrets of refused requests in any spelling, and URLs that carry credentials', async () => {
      const anna = keys['ops-anna']?.key as string;
      const refused = await as(anna, 'POST', '/providers', {
        name: 'Acq',
        kind: 'acquirer',
        bankCode: '936',
        outbound: { baseUrl: 'https://acq.example', clientKey: 'k', client_secret: 'TOPSECRET-1', partnerId: 'P' },
      });
      assert.equal(refused.status, 400);
      const withPassword = await as(anna, 'POST', '/providers', {
        name: 'Acq2',
        kind: 'acquirer',
        bankCode: '936',
        outbound: {
          baseUrl: 'https://:hunter2pw@acq.example',
          clientKey: 'k',
          clientSecret: 'TOPSECRET-2',
          partnerId: 'P',
        },
      });
      assert.equal(withPassword.status, 400, 'a password in the base URL is refused');
      assert.match(withPassword.body.errors.join(), /outbound\.baseUrl/);
      const log = JSON.stringify((await as(keys['auditor-citra']?.key as string, 'GET', '/audit?limit=10')).body);
      for (const secret of ['TOPSECRET-1', 'TOPSECRET-2', 'hunter2pw'])
        assert.equal(log.includes(secret), false, secret);
      assert.match(log, /"client_secret":"<redacted>"/);
    });

    it('keeps the master key status for admin keys', async () => {
      assert.equal((await as(keys['auditor-citra']?.key as string, 'GET', '/keys')).status, 403);
      assert.equal((await as(keys['ops-anna']?.key as string, 'GET', '/keys')).status, 200);
    });

    it('refuses a private key pasted where a public key belongs', async () => {
      const { generateKeyPairSync } = await import('node:crypto');
      const privatePem = generateKeyPairSync('rsa', { modulusLength: 2048 })
        .privateKey.export({ type: 'pkcs8', format: 'pem' })
        .toString();
      const m = await as(ADMIN_TOKEN, 'POST', '/merchants', { name: 'Careless', publicKeyPem: privatePem });
      assert.equal(m.status, 400);
      assert.match(m.body.errors.join(), /publicKeyPem/);
      const p = await as(ADMIN_TOKEN, 'POST', '/providers', {
        name: 'B',
        kind: 'bank',
        bankCode: '009',
        publicKeyPem: privatePem,
      });
      assert.equal(p.status, 400);
      const log = JSON.stringify((await as(ADMIN_TOKEN, 'GET', '/audit?limit=10')).body);
      assert.equal(log.includes(privatePem.split('\n')[1] as string), false, 'the private key is not in the audit log');
    });

    it('refuses a revoked key at once, and never the last admin key', async () => {
      const budi = keys['ops-budi'] as { id: string; key: string };
      assert.equal((await as(budi.key, 'GET', '/merchants')).status, 200);
      const revoked = await as(keys['ops-anna']?.key as string, 'POST', `/admin-keys/${budi.id}/revoke`);
      assert.equal(revoked.status, 200);
      assert.match(revoked.body.revokedAt, /Z$/);
      assert.equal((await as(budi.key, 'GET', '/merchants')).status, 401);
      // Two admin keys left (bootstrap, ops-anna): one may go, the last may not.
      const anna = keys['ops-anna'] as { id: string; key: string };
      const bootstrapId = (await as(anna.key, 'GET', '/admin-keys')).body.items[0].id;
      assert.equal((await as(anna.key, 'POST', `/admin-keys/${bootstrapId}/revoke`)).status, 200);
      assert.equal((await as(ADMIN_TOKEN, 'GET', '/merchants')).status, 401, 'the bootstrap token is a key like any');
      const last = await as(anna.key, 'POST', `/admin-keys/${anna.id}/revoke`);
      assert.equal(last.status, 409);
      assert.match(last.body.detail, /last admin key/);
    });
  });
}

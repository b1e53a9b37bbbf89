// Hardening round 2, finding 1: a body nested 20,000 deep (under the 64 KiB limit) on an admin
// route that ignores its body performed the action, answered 500 and wrote no audit row (the
// audit's redaction ran out of stack); other admin routes answered Fastify's own 400. Every route
// now refuses such a body at the edge, before any handler: admin routes with a problem, SNAP routes
// with their SNAP answer for a body that is not JSON. Very wide bodies are answered, never a 500.
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { ADMIN_TOKEN, startGateway, type TestGateway } from '../helpers/gateway.ts';
import { routesOf } from '../helpers/routes.ts';
import { authenticate, type SnapCaller, send, snapCall, tokenRequest } from '../helpers/snap.ts';
import type { StoreUnderTest } from '../helpers/store-under-test.ts';

const DEEP_ARRAY = `${'['.repeat(20_000)}${']'.repeat(20_000)}`;
const DEEP_OBJECT = `${'{"a":'.repeat(10_000)}1${'}'.repeat(10_000)}`;
const WIDE_OBJECT = JSON.stringify(Object.fromEntries(Array.from({ length: 5_000 }, (_, i) => [`k${i}`, i])));
const WIDE_ARRAY = JSON.stringify(Array.from({ length: 15_000 }, () => 0));
/** Exactly the deepest body accepted, and one level more. */
const nested = (levels: number) => `${'{"a":'.repeat(levels - 1)}{"name":"x"}${'}'.repeat(levels - 1)}`;

export function deepJsonSuite(under: StoreUnderTest): void {
  describe(`bodies nested thousands deep, and very wide ones (${under.name})`, () => {
    let gw: TestGateway;
    let merchant: SnapCaller;
    let cleanup: () => Promise<void>;

    before(async () => {
      const opened = await under.open();
      cleanup = opened.cleanup;
      gw = await startGateway(opened.store ? { store: opened.store } : {});
      const m = await gw.createMerchant();
      merchant = await authenticate(gw.url, m);
    });
    after(async () => {
      await gw.close();
      await cleanup();
    });

    const adminRaw = async (method: string, path: string, body: string) => {
      const r = await fetch(`${gw.url}${path}`, {
        method,
        headers: { authorization: `Bearer ${ADMIN_TOKEN}`, 'content-type': 'application/json' },
        body,
      });
      const text = await r.text();
      return { status: r.status, type: r.headers.get('content-type') ?? '', text };
    };
    const lastAudit = async () => (await gw.admin('GET', '/audit?limit=1')).body.items[0];

    it('refuses a deep body on a route that ignores it: nothing is revoked, and the refusal is audited', async () => {
      const created = await gw.admin('POST', '/admin-keys', { name: 'second-admin', scope: 'admin' });
      assert.equal(created.status, 201, JSON.stringify(created.body));
      const id = created.body.id as string;
      for (const body of [DEEP_ARRAY, DEEP_OBJECT]) {
        const r = await adminRaw('POST', `/admin/v1/admin-keys/${id}/revoke`, body);
        assert.equal(r.status, 400, r.text);
        assert.match(r.type, /^application\/problem\+json/);
        assert.deepEqual(JSON.parse(r.text), {
          type: 'about:blank',
          title: 'Bad Request',
          status: 400,
          detail: 'invalid request body',
          errors: ['body: nested deeper than 32 levels'],
        });
        const keys = (await gw.admin('GET', '/admin-keys')).body.items as Array<{ id: string; revokedAt: unknown }>;
        assert.equal(keys.find((k) => k.id === id)?.revokedAt, null);
        const audit = await lastAudit();
        assert.equal(audit.action, 'POST /admin/v1/admin-keys/:id/revoke');
        assert.equal(audit.target, id);
        assert.equal(audit.httpStatus, 400);
        assert.equal(audit.request, null);
      }
      // The same action with no body still works, and is audited as done.
      const revoked = await gw.admin('POST', `/admin-keys/${id}/revoke`);
      assert.equal(revoked.status, 200, JSON.stringify(revoked.body));
      assert.equal((await lastAudit()).httpStatus, 200);
    });

    it('takes a body exactly 32 levels deep and refuses 33', async () => {
      const ok = await adminRaw('POST', '/admin/v1/merchants', nested(32));
      // Parsed and judged by the schema: the unknown field `a` is refused, not the depth.
      assert.equal(ok.status, 400, ok.text);
      assert.doesNotMatch(ok.text, /nested deeper/);
      const deep = await adminRaw('POST', '/admin/v1/merchants', nested(33));
      assert.equal(deep.status, 400, deep.text);
      assert.match(deep.text, /nested deeper than 32 levels/);
      // A string full of brackets is text, not depth.
      const brackets = await adminRaw('POST', '/admin/v1/merchants', JSON.stringify({ name: '['.repeat(100) }));
      assert.equal(brackets.status, 201, brackets.text);
    });

    it('answers a deep body on every admin action with a problem and an audit row', async () => {
      const actions = [...routesOf(gw.gateway.app)].filter((r) => r.includes(' /admin/v1/') && !r.startsWith('GET '));
      assert.ok(actions.length >= 15, actions.join());
      for (const route of actions) {
        const [method, template] = route.split(' ') as [string, string];
        const path = template.replace(/\{\w+\}/g, 'x1');
        for (const body of [DEEP_ARRAY, DEEP_OBJECT]) {
          const r = await adminRaw(method, path, body);
          assert.equal(r.status, 400, `${route}: ${r.text}`);
          assert.match(r.type, /^application\/problem\+json/, route);
          assert.match(r.text, /nested deeper than 32 levels/, route);
          const audit = await lastAudit();
          assert.equal(audit.action, `${method} ${template.replace(/\{(\w+)\}/g, ':$1')}`);
          assert.equal(audit.httpStatus, 400);
        }
      }
    });

    it('answers a deep body on a payment call with the SNAP answer for a body that is not JSON', async () => {
      for (const body of [DEEP_ARRAY, DEEP_OBJECT]) {
        const qr = await snapCall(gw.url, merchant, '/api/snap/v1.0/qr/qr-mpm-generate', body);
        assert.deepEqual(qr.body, { responseCode: '4004700', responseMessage: 'Bad Request' });
        const va = await snapCall(gw.url, merchant, '/api/snap/v1.0/transfer-va/create-va', body);
        assert.deepEqual(va.body, { responseCode: '4002700', responseMessage: 'Bad Request' });
        const t = tokenRequest({ clientKey: merchant.clientKey, clientSecret: merchant.clientSecret });
        const token = await send(gw.url, 'POST', '/api/snap/v1.0/access-token/b2b', t.headers, body);
        assert.equal(token.status, 400, token.text);
        assert.deepEqual(token.body, { responseCode: '4007100', responseMessage: 'Bad Request' });
      }
    });

    it('never answers 5xx to a deep or very wide body on any route', async () => {
      const routes = [...routesOf(gw.gateway.app)].filter((r) => !r.startsWith('GET '));
      for (const route of routes) {
        const [method, template] = route.split(' ') as [string, string];
        const path = template.replace(/\{\w+\}/g, 'x1');
        for (const body of [DEEP_ARRAY, DEEP_OBJECT, WIDE_OBJECT, WIDE_ARRAY]) {
          const r = path.startsWith('/api/snap/')
            ? await snapCall(gw.url, merchant, path, body, { method })
            : path.startsWith('/admin/')
              ? await adminRaw(method, path, body)
              : await send(gw.url, method, path, { 'content-type': 'application/json' }, body);
          assert.ok(r.status < 500, `${route} ${body.slice(0, 12)}: ${r.status} ${r.text}`);
          if (path.startsWith('/api/snap/')) assert.match(r.text, /^\{"responseCode":"\d{7}"/, route);
        }
      }
      assert.equal((await fetch(`${gw.url}/readyz`)).status, 200);
    });
  });
}

import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, it } from 'node:test';
import { adminApiOf, type GatewayProcess, spawnGateway } from '../helpers/process.ts';
import { ACK, startReceiver, waitFor } from '../helpers/receiver.ts';
import { authenticate, snapCall } from '../helpers/snap.ts';

const ADMIN = 'crash-test-admin-token-000000';

const admin = adminApiOf(ADMIN);

async function states(gw: GatewayProcess, merchantId: string): Promise<Map<string, string>> {
  const out = new Map<string, string>();
  let cursor: string | null = null;
  do {
    const page: { body: { items: Array<{ id: string; state: string }>; nextCursor: string | null } } = await admin(
      gw,
      'GET',
      `/notifications?merchantId=${merchantId}&limit=500${cursor ? `&cursor=${encodeURIComponent(cursor)}` : ''}`,
    );
    for (const n of page.body.items) out.set(n.id, n.state);
    cursor = page.body.nextCursor;
  } while (cursor);
  return out;
}

describe('durability of notifications', () => {
  it('loses nothing when a gateway is SIGKILLed mid-delivery and restarted on the same database', {
    timeout: 90_000,
  }, async () => {
    const dir = mkdtempSync(join(tmpdir(), 'snapgate-crash-'));
    const receiver = await startReceiver(
      (_req, res) => void setTimeout(() => res.writeHead(200, { 'content-type': 'application/json' }).end(ACK), 30),
    );
    const env = {
      SNAPGATE_DB: join(dir, 'gw.db'),
      SNAPGATE_ADMIN_TOKEN: ADMIN,
      SNAPGATE_RATE_LIMIT: 'off',
      SNAPGATE_RETRY_SCHEDULE: '0s,200ms,200ms,200ms,200ms,200ms,200ms,200ms,200ms,200ms',
      SNAPGATE_CALLBACK_TIMEOUT_MS: '1000',
    };
    let gw = await spawnGateway(env);
    try {
      const m = (await admin(gw, 'POST', '/merchants', { name: 'Crash', callbackBaseUrl: receiver.baseUrl })).body;
      const c = await authenticate(gw.url, m);
      const N = 60;
      const refs: string[] = [];
      for (let i = 0; i < N; i++) {
        const g = await snapCall(gw.url, c, '/api/snap/v1.0/qr/qr-mpm-generate', {
          partnerReferenceNo: `CR-${i}`,
          amount: { value: '1000.00', currency: 'IDR' },
        });
        refs.push(g.body.referenceNo);
      }
      const pays = refs.map((r) => admin(gw, 'POST', `/sandbox/qris/${r}/pay`, {}).catch(() => undefined));
      await waitFor('some callbacks in flight', () => receiver.received.length >= 5);
      gw.child.kill('SIGKILL');
      await gw.exited;
      await Promise.all(pays);

      gw = await spawnGateway(env);
      // Payments the kill interrupted before they committed are paid now; the rest are refused as already paid.
      for (const r of refs) await admin(gw, 'POST', `/sandbox/qris/${r}/pay`, {});
      const all = await waitFor(
        'every notification delivered',
        async () => {
          const s = await states(gw, m.id);
          return s.size === N && [...s.values()].every((v) => v === 'delivered') ? s : undefined;
        },
        60_000,
      );
      const seenIds = new Set(receiver.received.map((r) => r.headers['x-external-id']));
      for (const id of all.keys()) assert.ok(seenIds.has(id), `notification ${id} reached the merchant`);
      const seenRefs = new Set(receiver.received.map((r) => JSON.parse(r.body).originalReferenceNo));
      assert.equal(seenRefs.size, N);
      // Duplicates are allowed (at-least-once) and carry the same X-EXTERNAL-ID and bytes.
      const byId = new Map<string, Set<string>>();
      for (const r of receiver.received) {
        const id = r.headers['x-external-id'] as string;
        byId.set(id, (byId.get(id) ?? new Set()).add(r.body));
      }
      for (const bodies of byId.values()) assert.equal(bodies.size, 1);
    } finally {
      gw.child.kill('SIGKILL');
      await receiver.close();
      rmSync(dir, { recursive: true, force: true });
    }
  });

  it('on SIGTERM stops claiming, finishes or gives back work in flight, exits 0, and the rest is delivered after restart', {
    timeout: 60_000,
  }, async () => {
    const dir = mkdtempSync(join(tmpdir(), 'snapgate-term-'));
    let slow = true;
    const receiver = await startReceiver(
      (_req, res) =>
        void setTimeout(() => res.writeHead(200, { 'content-type': 'application/json' }).end(ACK), slow ? 3000 : 0),
    );
    const env = {
      SNAPGATE_DB: join(dir, 'gw.db'),
      SNAPGATE_ADMIN_TOKEN: ADMIN,
      SNAPGATE_RATE_LIMIT: 'off',
      SNAPGATE_RETRY_SCHEDULE: '0s,100ms,100ms,100ms,100ms',
      SNAPGATE_CALLBACK_TIMEOUT_MS: '1500',
    };
    let gw = await spawnGateway(env);
    try {
      const m = (await admin(gw, 'POST', '/merchants', { name: 'Term', callbackBaseUrl: receiver.baseUrl })).body;
      const c = await authenticate(gw.url, m);
      for (let i = 0; i < 5; i++) {
        const g = await snapCall(gw.url, c, '/api/snap/v1.0/qr/qr-mpm-generate', {
          partnerReferenceNo: `T-${i}`,
          amount: { value: '1.00', currency: 'IDR' },
        });
        await admin(gw, 'POST', `/sandbox/qris/${g.body.referenceNo}/pay`, {});
      }
      await waitFor('callbacks in flight', () => receiver.received.length >= 5);
      const started = Date.now();
      gw.child.kill('SIGTERM');
      assert.equal(await gw.exited, 0);
      assert.ok(Date.now() - started < 8000, 'shutdown is bounded');
      slow = false;
      gw = await spawnGateway(env);
      await waitFor(
        'all delivered after restart',
        async () => {
          const s = await states(gw, m.id);
          return s.size === 5 && [...s.values()].every((v) => v === 'delivered');
        },
        30_000,
      );
    } finally {
      gw.child.kill('SIGKILL');
      await receiver.close();
      rmSync(dir, { recursive: true, force: true });
    }
  });
});

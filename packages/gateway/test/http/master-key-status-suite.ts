// GET /admin/v1/keys: which master key seals how many secrets, counted by the database without
// locking or rewriting a row, and the same counts a walk over every secret finds.
import assert from 'node:assert/strict';
import { generateKeyPairSync } from 'node:crypto';
import { after, before, describe, it } from 'node:test';
import { createSealer } from '../../src/secrets/sealer.ts';
import type { PostgresStore } from '../../src/store/postgres/postgres-store.ts';
import { SECRET_SETTINGS } from '../../src/store/sealed-store.ts';
import { startGateway, TEST_MASTER_KEY, type TestGateway } from '../helpers/gateway.ts';
import { waitFor } from '../helpers/receiver.ts';
import type { StoreUnderTest } from '../helpers/store-under-test.ts';

const sealer = createSealer(Buffer.from(TEST_MASTER_KEY, 'base64'));

export function masterKeyStatusSuite(under: StoreUnderTest): void {
  describe(`master key status (${under.name})`, () => {
    let gw: TestGateway;
    let cleanup: () => Promise<void>;

    before(async () => {
      const opened = await under.open();
      cleanup = opened.cleanup;
      gw = await startGateway(opened.store ? { store: opened.store } : {});
      const merchant = await gw.createMerchant({ name: 'Counted' });
      await gw.admin('POST', `/merchants/${merchant.id}/rotate-secret`, { overlapSec: 600 });
      const privateKeyPem = generateKeyPairSync('rsa', { modulusLength: 1024 })
        .privateKey.export({ type: 'pkcs8', format: 'pem' })
        .toString();
      const acquirer = await gw.admin('POST', '/providers', {
        name: 'Counted Acquirer',
        kind: 'acquirer',
        bankCode: '936',
        outbound: {
          baseUrl: 'https://acquirer.example',
          clientKey: 'ck',
          clientSecret: 'cs',
          privateKeyPem,
          partnerId: 'P1',
        },
      });
      assert.equal(acquirer.status, 201, JSON.stringify(acquirer.body));
    });
    after(async () => {
      await gw.close();
      await cleanup();
    });

    it('counts the secrets under each key as a walk over every stored secret does', async () => {
      const walked: Record<string, number> = {};
      await gw.store.resealSecrets((stored) => {
        const kid = sealer.keyIdOfRecord(stored) ?? 'clear';
        walked[kid] = (walked[kid] ?? 0) + 1;
        return undefined;
      }, SECRET_SETTINGS);
      const status = await gw.admin('GET', '/keys');
      assert.equal(status.status, 200);
      assert.deepEqual(status.body, {
        currentKeyId: sealer.currentKeyId,
        configuredKeyIds: [sealer.currentKeyId],
        secretsByKeyId: walked,
      });
      // Both merchant secrets, the provider's, its outbound secret and key, the gateway's own keys.
      assert.ok((walked[sealer.currentKeyId] ?? 0) >= 7, JSON.stringify(walked));
    });

    it('answers while another transaction holds every secret row', { skip: under.name !== 'PostgreSQL' }, async () => {
      const store = gw.store as unknown as PostgresStore;
      assert.ok(store.pool, 'a PostgreSQL store');
      const holder = await store.pool.connect();
      const watcher = await store.pool.connect();
      let answer: { status: number; body: unknown } | undefined;
      let request: Promise<void> | undefined;
      try {
        await holder.query('BEGIN');
        for (const table of ['merchants', 'providers', 'settings'])
          await holder.query(`SELECT * FROM ${table} FOR UPDATE`);
        request = gw.admin('GET', '/keys').then((r) => {
          answer = r;
        });
        const waiting = async () =>
          (
            await watcher.query(
              `SELECT count(*)::int AS n FROM pg_stat_activity WHERE datname = current_database() AND wait_event_type = 'Lock'`,
            )
          ).rows[0].n > 0;
        await waitFor(
          'GET /keys to answer, or to wait for a lock',
          async () => answer !== undefined || (await waiting()),
        );
        assert.equal(answer?.status, 200, 'GET /keys waited for row locks another transaction holds');
      } finally {
        await holder.query('ROLLBACK').catch(() => undefined);
        holder.release();
        watcher.release();
        await request;
      }
    });
  });
}

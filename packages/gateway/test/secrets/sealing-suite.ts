// Secrets sealed at rest: a database copied without the master key yields no secret, a new
// master key re-seals everything without stopping a merchant, and clear rows of an older
// database are sealed at start. Real gateway processes on a real SQLite file or PostgreSQL.
import assert from 'node:assert/strict';
import { generateKeyPairSync, randomBytes } from 'node:crypto';
import { existsSync, mkdtempSync, readFileSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, describe, it } from 'node:test';
import Database from 'better-sqlite3';
import pg from 'pg';
import type { SecretPlace } from '../../src/records/records.ts';
import { createSealer } from '../../src/secrets/sealer.ts';
import { placeOfSecret } from '../../src/store/sealed-store.ts';
import { sealForm1 } from '../helpers/legacy-seal.ts';
import { adminApiOf, type GatewayProcess, spawnGateway } from '../helpers/process.ts';
import { waitFor } from '../helpers/receiver.ts';
import { postToken } from '../helpers/snap.ts';
import type { StoreUnderTest } from '../helpers/store-under-test.ts';

const ADMIN = 'sealing-admin-token-0123456789';
const admin = adminApiOf(ADMIN);
const newKey = () => randomBytes(32).toString('base64');

/** One value of one column of one row, as text. */
interface Cell {
  table: string;
  column: string;
  row: Record<string, unknown>;
  text: string;
}

/** Every value of every column of every table. */
async function everyCell(env: Record<string, string>): Promise<Cell[]> {
  const cells: Cell[] = [];
  const add = (table: string, row: Record<string, unknown>) => {
    for (const [column, v] of Object.entries(row)) {
      if (v === null || v === undefined) continue;
      const text = Buffer.isBuffer(v) ? v.toString('latin1') : typeof v === 'object' ? JSON.stringify(v) : String(v);
      cells.push({ table, column, row, text });
    }
  };
  if (env.SNAPGATE_DATABASE_URL) {
    const c = new pg.Client({ connectionString: env.SNAPGATE_DATABASE_URL });
    await c.connect();
    try {
      const tables = await c.query(`SELECT tablename FROM pg_tables WHERE schemaname = 'public'`);
      for (const { tablename } of tables.rows) {
        for (const row of (await c.query(`SELECT * FROM "${tablename}"`)).rows) add(tablename, row);
      }
    } finally {
      await c.end();
    }
  } else {
    const db = new Database(env.SNAPGATE_DB as string, { readonly: true });
    try {
      const tables = db.prepare(`SELECT name FROM sqlite_master WHERE type = 'table'`).all() as { name: string }[];
      for (const { name } of tables) {
        for (const row of db.prepare(`SELECT * FROM "${name}"`).all() as Record<string, unknown>[]) add(name, row);
      }
    } finally {
      db.close();
    }
  }
  return cells;
}

/** A sealed value with where it lives: a secret column, a field of a provider's outbound JSON, a setting. */
interface SealedValue {
  stored: string;
  place: SecretPlace;
}

/** Every sealed value the database holds (outbound JSON opened up), with its place. */
function sealedValues(cells: Cell[]): SealedValue[] {
  const out: SealedValue[] = [];
  for (const c of cells) {
    if (c.table === 'providers' && c.column === 'outbound') {
      const o = JSON.parse(c.text) as Record<string, unknown>;
      for (const [field, v] of Object.entries(o)) {
        if (typeof v === 'string' && v.startsWith('sg1.')) {
          out.push({ stored: v, place: { table: 'providers', column: `outbound.${field}`, id: String(c.row.id) } });
        }
      }
      continue;
    }
    if (!c.text.startsWith('sg1.')) continue;
    const place: SecretPlace =
      c.table === 'settings'
        ? { table: 'settings', key: String(c.row.key) }
        : { table: c.table as 'merchants' | 'providers', column: c.column, id: String(c.row.id) };
    out.push({ stored: c.text, place });
  }
  return out;
}

/** Runs statements (`?` placeholders) on the gateway's database while no gateway is running. */
async function write(env: Record<string, string>, statements: Array<[string, unknown[]]>): Promise<void> {
  if (env.SNAPGATE_DATABASE_URL) {
    const c = new pg.Client({ connectionString: env.SNAPGATE_DATABASE_URL });
    await c.connect();
    try {
      for (const [text, values] of statements) {
        let n = 0;
        await c.query(
          text.replace(/\?/g, () => `$${++n}`),
          values,
        );
      }
    } finally {
      await c.end();
    }
  } else {
    const db = new Database(env.SNAPGATE_DB as string);
    try {
      for (const [text, values] of statements) db.prepare(text).run(...values);
    } finally {
      db.close();
    }
  }
}

/** The spellings of a secret a careless store could hold. */
function spellings(secret: string): string[] {
  const out = [secret, Buffer.from(secret).toString('base64'), Buffer.from(secret).toString('hex')];
  // A base64 secret (the JWT key) may also be kept as its bytes, in hex or base64url.
  if (/^[A-Za-z0-9+/]+=*$/.test(secret) && secret.length >= 40) {
    const raw = Buffer.from(secret, 'base64');
    out.push(raw.toString('hex'), raw.toString('base64url'));
  }
  return out;
}

/** For a PEM private key: its body lines, each long enough to be unmistakable. */
const pemLines = (pem: string) => pem.split('\n').filter((l) => /^[A-Za-z0-9+/=]{60,}$/.test(l));

export function sealingSuite(under: StoreUnderTest): void {
  describe(`secrets sealed at rest (${under.name})`, { timeout: 120_000 }, () => {
    const dir = mkdtempSync(join(tmpdir(), 'snapgate-seal-'));
    const cleanups: Array<() => Promise<void>> = [];
    const running: GatewayProcess[] = [];
    after(async () => {
      for (const g of running) g.child.kill('SIGKILL');
      for (const c of cleanups) await c();
      rmSync(dir, { recursive: true, force: true });
    });
    async function database(name: string) {
      const { env, cleanup } = await under.processEnv(dir, name);
      cleanups.push(cleanup);
      return env;
    }
    async function start(env: Record<string, string>) {
      const g = await spawnGateway({ SNAPGATE_ADMIN_TOKEN: ADMIN, SNAPGATE_LOG_LEVEL: 'warn', ...env });
      running.push(g);
      return g;
    }
    async function stop(g: GatewayProcess) {
      g.child.kill('SIGTERM');
      await g.exited;
    }
    const tokenStatus = async (g: GatewayProcess, clientKey: string, clientSecret: string) =>
      (await postToken(g.url, { clientKey, clientSecret })).status;

    it('leaves none of the secrets in any column of any table, raw, base64 or hex', async () => {
      const key = newKey();
      const env: Record<string, string> = { ...(await database('scan')), SNAPGATE_MASTER_KEY: key };
      const g = await start(env);
      const secrets: string[] = [];
      const m = (await admin(g, 'POST', '/merchants', { name: 'Toko' })).body;
      secrets.push(m.clientSecret);
      const rotated = (await admin(g, 'POST', `/merchants/${m.id}/rotate-secret`, { overlapSec: 3600 })).body;
      secrets.push(rotated.clientSecret);
      const bank = (await admin(g, 'POST', '/providers', { name: 'Bank', kind: 'bank', bankCode: '014' })).body;
      secrets.push(bank.clientSecret);
      const outboundKey = generateKeyPairSync('rsa', { modulusLength: 2048 })
        .privateKey.export({ type: 'pkcs8', format: 'pem' })
        .toString();
      const acquirer = (
        await admin(g, 'POST', '/providers', {
          name: 'Acquirer',
          kind: 'acquirer',
          bankCode: '936',
          outbound: {
            baseUrl: 'https://acquirer.example/',
            clientKey: 'at-acquirer',
            clientSecret: 'outbound-secret-9f8e7d6c5b4a',
            privateKeyPem: outboundKey,
            partnerId: 'P1',
          },
        })
      ).body;
      secrets.push(acquirer.clientSecret, 'outbound-secret-9f8e7d6c5b4a');
      // A payment, so that transactions, notifications and logs exist too.
      assert.equal(await tokenStatus(g, m.clientKey, rotated.clientSecret), 200);
      await stop(g);

      // What the gateway itself holds, opened with the key the test knows.
      const sealer = createSealer(Buffer.from(key, 'base64'));
      const cells = await everyCell(env);
      const sealed = sealedValues(cells);
      assert.ok(sealed.length >= 8, 'secrets are there, sealed');
      for (const v of sealed) assert.match(v.stored, /^sg1\.[0-9a-f]{8}\.2\./, 'sealed for their place');
      const opened = sealed.map((v) => sealer.unseal(v.stored, placeOfSecret(v.place)));
      // The JWT key, the callback private key and the sandbox providers' secrets are among them.
      const pems = opened.filter((o) => o.includes('PRIVATE KEY'));
      assert.ok(pems.length >= 1, 'the callback private key is sealed');
      secrets.push(...opened.filter((o) => !o.includes('PRIVATE KEY')));
      const lines = [...pemLines(outboundKey), ...pems.flatMap(pemLines)];
      assert.ok(lines.length > 10);
      const everything = cells.map((c) => c.text).join('\n');
      for (const secret of secrets) {
        for (const s of spellings(secret)) assert.equal(everything.includes(s), false, `a secret is stored as ${s}`);
      }
      for (const line of lines) assert.equal(everything.includes(line), false, 'a private key is stored in clear');
      if (env.SNAPGATE_DB) {
        // The file itself, write-ahead log included, not only what SQL shows.
        const bytes = [env.SNAPGATE_DB, `${env.SNAPGATE_DB}-wal`]
          .filter((f) => existsSync(f))
          .map((f) => readFileSync(f).toString('latin1'))
          .join('');
        for (const secret of secrets) assert.equal(bytes.includes(secret), false, 'a secret is in the file');
        for (const line of lines) assert.equal(bytes.includes(line), false, 'a private key is in the file');
      }
    });

    it('re-seals every secret under a new master key while every merchant keeps working', async () => {
      const k1 = newKey();
      const k2 = newKey();
      const env = await database('rotate');
      let g = await start({ ...env, SNAPGATE_MASTER_KEY: k1 });
      const merchants = [];
      for (let i = 0; i < 3; i++) merchants.push((await admin(g, 'POST', '/merchants', { name: `M${i}` })).body);
      const bank = (await admin(g, 'POST', '/providers', { name: 'Bank', kind: 'bank', bankCode: '014' })).body;
      const before = (await admin(g, 'GET', '/keys')).body;
      assert.deepEqual(before.configuredKeyIds, [before.currentKeyId]);
      await stop(g);

      // The new key in front, the old one still opening what is sealed under it.
      g = await start({ ...env, SNAPGATE_MASTER_KEY: k2, SNAPGATE_MASTER_KEY_PREVIOUS: k1 });
      for (const m of merchants) assert.equal(await tokenStatus(g, m.clientKey, m.clientSecret), 200);
      const mixed = (await admin(g, 'GET', '/keys')).body;
      assert.notEqual(mixed.currentKeyId, before.currentKeyId);
      assert.equal(mixed.secretsByKeyId[mixed.currentKeyId], undefined, 'nothing is under the new key yet');
      const rotated = (await admin(g, 'POST', '/keys/rotate')).body;
      // The secret values keys status counted under the old key, each re-sealed once.
      const underOld = Object.values(mixed.secretsByKeyId as Record<string, number>).reduce((a, b) => a + b, 0);
      assert.equal(rotated.resealed, underOld);
      assert.deepEqual(Object.keys(rotated.secretsByKeyId), [mixed.currentKeyId]);
      for (const m of merchants) assert.equal(await tokenStatus(g, m.clientKey, m.clientSecret), 200);
      assert.equal(await tokenStatus(g, bank.clientKey, bank.clientSecret), 200);
      await stop(g);

      // The old key can go.
      g = await start({ ...env, SNAPGATE_MASTER_KEY: k2 });
      for (const m of merchants) assert.equal(await tokenStatus(g, m.clientKey, m.clientSecret), 200);
      assert.equal(await tokenStatus(g, bank.clientKey, bank.clientSecret), 200);
      await stop(g);

      // Without the key that seals them, the secrets cannot be opened: the gateway says so and stops.
      await assert.rejects(
        start({ ...env, SNAPGATE_MASTER_KEY: k1 }),
        /sealed under master key [0-9a-f]{8}, which is not configured/,
      );
    });

    it('seals the clear secrets of an older database at start, and they keep working', async () => {
      const env: Record<string, string> = { ...(await database('legacy')), SNAPGATE_MASTER_KEY: newKey() };
      let g = await start(env);
      const m = (await admin(g, 'POST', '/merchants', { name: 'Old' })).body;
      await stop(g);
      // As an older snapgate wrote it: the secret in clear.
      const clear = `legacy-${randomBytes(12).toString('hex')}`;
      if (env.SNAPGATE_DATABASE_URL) {
        const c = new pg.Client({ connectionString: env.SNAPGATE_DATABASE_URL });
        await c.connect();
        await c.query('UPDATE merchants SET client_secret = $1 WHERE id = $2', [clear, m.id]);
        await c.end();
      } else {
        const db = new Database(env.SNAPGATE_DB as string);
        db.prepare('UPDATE merchants SET client_secret = ? WHERE id = ?').run(clear, m.id);
        db.close();
      }
      assert.ok((await everyCell(env)).some((c) => c.text === clear));
      g = await start(env);
      assert.equal(await tokenStatus(g, m.clientKey, clear), 200);
      await stop(g);
      const cells = await everyCell(env);
      assert.equal(
        cells
          .map((c) => c.text)
          .join('\n')
          .includes(clear),
        false,
        'sealed at start',
      );
    });

    it('refuses a secret moved to another merchant or another setting, saying where, instead of using it', async () => {
      const env: Record<string, string> = { ...(await database('moved')), SNAPGATE_MASTER_KEY: newKey() };
      let g = await start(env);
      const a = (await admin(g, 'POST', '/merchants', { name: 'A' })).body;
      const b = (await admin(g, 'POST', '/merchants', { name: 'B' })).body;
      await stop(g);
      // Someone who can write the database copies A's sealed secret onto B.
      const cells = await everyCell(env);
      const secretOf = (id: string) =>
        cells.find((c) => c.table === 'merchants' && c.column === 'client_secret' && c.row.id === id)?.text as string;
      await write(env, [['UPDATE merchants SET client_secret = ? WHERE id = ?', [secretOf(a.id), b.id]]]);
      g = await start(env);
      assert.equal(await tokenStatus(g, a.clientKey, a.clientSecret), 200);
      assert.equal(await tokenStatus(g, b.clientKey, a.clientSecret), 500, 'A’s secret does not open as B’s');
      assert.equal(await tokenStatus(g, b.clientKey, b.clientSecret), 500);
      // The process writes its log line on its own schedule: wait for it, never read it once.
      const refusal = new RegExp(`the secret at merchants\\.client_secret/${b.id} does not open under master key`);
      const gateway = g;
      await waitFor('the log line naming the refused secret', () => refusal.test(gateway.stdout() + gateway.stderr()));
      await stop(g);
      // A setting's sealed value copied onto another setting: the gateway does not start.
      const setting = (key: string) =>
        cells.find((c) => c.table === 'settings' && c.column === 'value' && c.row.key === key)?.text as string;
      await write(env, [
        ['UPDATE settings SET value = ? WHERE key = ?', [setting('callback_rsa_private_pem'), 'jwt_hs256_key']],
      ]);
      await assert.rejects(start(env), /the secret at settings\/jwt_hs256_key does not open/);
    });

    it('opens a database sealed by an earlier version, rewrites it for its places at start, and rotates it', async () => {
      const k1 = newKey();
      const k2 = newKey();
      const env = await database('form1');
      let g = await start({ ...env, SNAPGATE_MASTER_KEY: k1 });
      const m = (await admin(g, 'POST', '/merchants', { name: 'Earlier' })).body;
      const rotated = (await admin(g, 'POST', `/merchants/${m.id}/rotate-secret`, { overlapSec: 3600 })).body;
      const bank = (await admin(g, 'POST', '/providers', { name: 'Bank', kind: 'bank', bankCode: '014' })).body;
      const privateKeyPem = generateKeyPairSync('rsa', { modulusLength: 1024 })
        .privateKey.export({ type: 'pkcs8', format: 'pem' })
        .toString();
      const outbound = {
        baseUrl: 'https://acquirer.example/',
        clientKey: 'ck',
        clientSecret: 'cs',
        privateKeyPem,
        partnerId: 'P1',
      };
      const acquirer = (
        await admin(g, 'POST', '/providers', { name: 'Acq', kind: 'acquirer', bankCode: '936', outbound })
      ).body;
      await stop(g);

      // Every sealed value rewritten as an earlier version sealed it: form 1, one constant AAD.
      const key1 = Buffer.from(k1, 'base64');
      const sealer1 = createSealer(key1);
      const toForm1 = (stored: string, place: SecretPlace) =>
        sealForm1(key1, sealer1.unseal(stored, placeOfSecret(place)));
      const statements: Array<[string, unknown[]]> = [];
      for (const c of await everyCell(env)) {
        if (c.table === 'providers' && c.column === 'outbound') {
          const o = JSON.parse(c.text) as Record<string, string | null>;
          for (const field of ['clientSecret', 'privateKeyPem']) {
            const v = o[field];
            if (v) o[field] = toForm1(v, { table: 'providers', column: `outbound.${field}`, id: String(c.row.id) });
          }
          statements.push(['UPDATE providers SET outbound = ? WHERE id = ?', [JSON.stringify(o), c.row.id]]);
        } else if (c.text.startsWith('sg1.') && c.table === 'settings') {
          const form1 = toForm1(c.text, { table: 'settings', key: String(c.row.key) });
          statements.push(['UPDATE settings SET value = ? WHERE key = ?', [form1, c.row.key]]);
        } else if (c.text.startsWith('sg1.')) {
          const place: SecretPlace = { table: c.table as 'merchants', column: c.column, id: String(c.row.id) };
          statements.push([`UPDATE ${c.table} SET ${c.column} = ? WHERE id = ?`, [toForm1(c.text, place), c.row.id]]);
        }
      }
      await write(env, statements);
      const before = sealedValues(await everyCell(env));
      assert.ok(before.length >= 9, 'merchant, bank, acquirer (outbound too) and the gateway’s own keys');
      for (const v of before) assert.doesNotMatch(v.stored, /^sg1\.[0-9a-f]{8}\.2\./, 'form 1 throughout');

      // Upgraded with a key rotation under way: the new key in front, the earlier one still opening.
      g = await start({ ...env, SNAPGATE_MASTER_KEY: k2, SNAPGATE_MASTER_KEY_PREVIOUS: k1 });
      assert.equal(await tokenStatus(g, m.clientKey, rotated.clientSecret), 200);
      assert.equal(await tokenStatus(g, m.clientKey, m.clientSecret), 200, 'the previous secret, within its overlap');
      assert.equal(await tokenStatus(g, bank.clientKey, bank.clientSecret), 200);
      assert.equal((await admin(g, 'GET', `/providers/${acquirer.id}`)).body.outbound.hasPrivateKey, true);
      const upgraded = sealedValues(await everyCell(env));
      assert.equal(upgraded.length, before.length);
      const status = (await admin(g, 'GET', '/keys')).body;
      const k1Id = sealer1.currentKeyId;
      assert.deepEqual(status.secretsByKeyId, { [k1Id]: before.length }, 'still under the key that sealed them');
      for (const v of upgraded) {
        assert.match(v.stored, new RegExp(`^sg1\\.${k1Id}\\.2\\.`), 'in form 2, bound to its place');
        assert.doesNotThrow(() => sealer1.unseal(v.stored, placeOfSecret(v.place)));
      }
      const rotation = (await admin(g, 'POST', '/keys/rotate')).body;
      assert.deepEqual(rotation.secretsByKeyId, { [status.currentKeyId]: before.length });
      await stop(g);

      // The earlier key can go.
      g = await start({ ...env, SNAPGATE_MASTER_KEY: k2 });
      assert.equal(await tokenStatus(g, m.clientKey, rotated.clientSecret), 200);
      assert.equal(await tokenStatus(g, bank.clientKey, bank.clientSecret), 200);
      assert.equal((await admin(g, 'GET', `/providers/${acquirer.id}`)).body.outbound.hasPrivateKey, true);
      await stop(g);
    });

    it('refuses to start in production without a master key; in sandbox keeps one in a private file', async () => {
      const env = await database('nokey');
      await assert.rejects(
        start({ ...env, SNAPGATE_MODE: 'production' }),
        /SNAPGATE_MASTER_KEY: required in production mode/,
      );
      if (!env.SNAPGATE_DB) return;
      const g = await start(env);
      const keyFile = join(dir, 'master.key');
      assert.equal(statSync(keyFile).mode & 0o777, 0o600);
      assert.match(g.stdout() + g.stderr(), /set SNAPGATE_MASTER_KEY for production/);
      const m = (await admin(g, 'POST', '/merchants', { name: 'Sandbox' })).body;
      await stop(g);
      const again = await start(env);
      assert.equal(await tokenStatus(again, m.clientKey, m.clientSecret), 200, 'the same key on the next start');
      await stop(again);
    });
  });
}

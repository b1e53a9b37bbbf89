// The SDK as an outside merchant gets it: both packages packed with `npm pack`, installed from the
// tarballs alone into a fresh project outside the workspace, then used from plain JavaScript (ESM
// and CommonJS) against a real gateway, and type-checked by a strict tsc that also checks the
// packages' own declaration files.
import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import { copyFileSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { startGateway, type TestGateway, type TestMerchant } from '../helpers/gateway.ts';

const run = promisify(execFile);
const here = dirname(fileURLToPath(import.meta.url));
const root = resolve(here, '../../../..');
const npm = process.platform === 'win32' ? 'npm.cmd' : 'npm';
const tsc = createRequire(join(root, 'package.json')).resolve('typescript/bin/tsc');

interface Packed {
  filename: string;
  files: { path: string }[];
}

async function pack(pkg: string, into: string): Promise<Packed> {
  const { stdout } = await run(npm, ['pack', '--json', '--pack-destination', into], {
    cwd: join(root, 'packages', pkg),
    maxBuffer: 16 * 1024 * 1024,
  });
  // npm prints the lifecycle output of prepack before the JSON.
  const packed = JSON.parse(stdout.slice(stdout.indexOf('\n[') + 1)) as Packed[];
  assert.equal(packed.length, 1);
  return packed[0] as Packed;
}

describe('the packed SDK in a fresh project', { timeout: 180_000 }, () => {
  const tarballs = mkdtempSync(join(tmpdir(), 'snapgate-pack-'));
  const project = mkdtempSync(join(tmpdir(), 'snapgate-consumer-'));
  let snapPack: Packed;
  let sdkPack: Packed;
  let gw: TestGateway;
  let merchant: TestMerchant;

  before(async () => {
    snapPack = await pack('snap', tarballs);
    sdkPack = await pack('merchant-sdk', tarballs);
    writeFileSync(
      join(project, 'package.json'),
      `${JSON.stringify({ name: 'a-merchant', private: true, type: 'module' }, null, 2)}\n`,
    );
    // From the tarballs alone: --offline proves nothing is fetched from a registry.
    await run(
      npm,
      [
        'install',
        '--offline',
        '--no-audit',
        '--no-fund',
        join(tarballs, snapPack.filename),
        join(tarballs, sdkPack.filename),
      ],
      { cwd: project },
    );
    for (const f of ['esm.mjs', 'cjs.cjs', 'check.mts', 'check.cts'])
      copyFileSync(join(here, 'consumer', f), join(project, f));
    gw = await startGateway({ dispatch: true });
    merchant = await gw.createMerchant({ callbackBaseUrl: 'http://127.0.0.1:9' });
  });

  after(async () => {
    await gw?.close();
    rmSync(tarballs, { recursive: true, force: true });
    rmSync(project, { recursive: true, force: true });
  });

  const envOf = () => ({
    ...process.env,
    NODE_OPTIONS: '',
    GATEWAY_URL: gw.url,
    ADMIN_TOKEN: 'test-admin-token-0123456789',
    MERCHANT_ID: merchant.id,
    CLIENT_KEY: merchant.clientKey,
    CLIENT_SECRET: merchant.clientSecret,
    PARTNER_ID: merchant.partnerId,
  });

  it('ships the builds, types, README and LICENSE, and no sources or tests', () => {
    for (const p of [snapPack, sdkPack]) {
      const paths = p.files.map((f) => f.path);
      for (const must of [
        'package.json',
        'README.md',
        'LICENSE',
        'dist/esm/index.js',
        'dist/esm/index.d.ts',
        'dist/cjs/index.js',
        'dist/cjs/index.d.ts',
        'dist/cjs/package.json',
      ]) {
        assert.ok(paths.includes(must), `${p.filename} has ${must}`);
      }
      const stray = paths.filter((f) => /(^|\/)(src|test)\/|\.ts$/.test(f) && !f.endsWith('.d.ts'));
      assert.deepEqual(stray, [], `${p.filename} ships no sources or tests`);
    }
    const manifest = JSON.parse(
      readFileSync(join(project, 'node_modules/@snapgate/merchant-sdk/package.json'), 'utf8'),
    );
    assert.equal(manifest.license, 'MIT');
    assert.ok(manifest.repository?.url);
    assert.deepEqual(Object.keys(manifest.exports['.']), ['import', 'require']);
  });

  it('plain ESM: token, QRIS, and the callback verified and applied by createCallbackHandler', async () => {
    const { stdout } = await run(process.execPath, ['esm.mjs'], { cwd: project, env: envOf() });
    const r = JSON.parse(stdout);
    assert.deepEqual(r, {
      token: true,
      qrContent: true,
      callback: { status: '00', action: 'PAID', path: '/webhook/payment-qr-notification' },
      ack: '2002600',
      networkError: 'ECONNREFUSED',
    });
  });

  it('CommonJS: require() the SDK, token, QRIS, and the callback verified by verifyCallback', async () => {
    const { stdout } = await run(process.execPath, ['cjs.cjs'], { cwd: project, env: envOf() });
    const r = JSON.parse(stdout);
    assert.equal(r.token, true);
    assert.deepEqual(r.verified, { status: '00', amount: '20000.00' });
    const txn = (await gw.admin('GET', `/transactions/${r.referenceNo}`)).body;
    assert.equal(txn.status, '00');
  });

  it('a strict tsc (NodeNext, skipLibCheck off) accepts the ESM and CommonJS types', async () => {
    writeFileSync(
      join(project, 'tsconfig.json'),
      JSON.stringify({
        compilerOptions: {
          strict: true,
          module: 'NodeNext',
          moduleResolution: 'NodeNext',
          target: 'ES2022',
          noEmit: true,
          skipLibCheck: false,
          types: ['node'],
          // @types/node from the workspace: the fresh project installs nothing from a registry.
          typeRoots: [join(root, 'node_modules/@types')],
        },
        files: ['check.mts', 'check.cts'],
      }),
    );
    const r = await run(process.execPath, [tsc, '-p', 'tsconfig.json'], { cwd: project }).catch(
      (e: { stdout: string; code: number }) => e,
    );
    assert.equal('code' in r ? r.code : 0, 0, 'stdout' in r ? r.stdout : '');
  });
});

// The README's curl walkthrough, run as written: its shell blocks, in order, in one bash against a
// real gateway, with only the placeholders of its first block (the values `npm start` prints) and
// the receiver's port filled in.
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { dirname, resolve } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { fileURLToPath } from 'node:url';
import { ADMIN_TOKEN, startGateway, type TestGateway, type TestMerchant } from '../helpers/gateway.ts';
import { closedPort } from '../helpers/receiver.ts';

const README = resolve(dirname(fileURLToPath(import.meta.url)), '../../../../README.md');

/** The fenced `sh` blocks of one README section. */
export function shellBlocksOf(markdown: string, heading: string): string[] {
  const start = markdown.indexOf(`\n## ${heading}\n`);
  assert.ok(start >= 0, `README has a "## ${heading}" section`);
  const next = markdown.indexOf('\n## ', start + 1);
  const section = markdown.slice(start, next < 0 ? undefined : next);
  return [...section.matchAll(/```sh\n([\s\S]*?)```/g)].map((m) => m[1] as string);
}

function runBash(script: string, env: NodeJS.ProcessEnv, timeoutMs: number) {
  return new Promise<{ code: number | null; stdout: string; stderr: string }>((done) => {
    const child = spawn('bash', ['-c', `set -euo pipefail\n${script}`], { env, detached: true });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (c) => {
      stdout += c;
    });
    child.stderr.on('data', (c) => {
      stderr += c;
    });
    const timer = setTimeout(() => process.kill(-(child.pid as number), 'SIGKILL'), timeoutMs);
    child.on('close', (code) => {
      clearTimeout(timer);
      // The walkthrough's receiver runs in the background: never leave it behind.
      try {
        process.kill(-(child.pid as number), 'SIGKILL');
      } catch {}
      done({ code, stdout, stderr });
    });
  });
}

describe('README: the curl and openssl walkthrough', () => {
  let gw: TestGateway;
  let merchant: TestMerchant;
  before(async () => {
    gw = await startGateway({ dispatch: true });
    merchant = await gw.createMerchant({ name: 'Walkthrough' });
  });
  after(() => gw.close());

  it('runs as written: token, signed QRIS, sandbox payment, a callback whose signature checks out', async () => {
    const blocks = shellBlocksOf(readFileSync(README, 'utf8'), 'Walkthrough: curl and openssl');
    assert.ok(blocks.length >= 5, 'the placeholders block and at least four steps');
    const [placeholders, ...steps] = blocks as [string, ...string[]];
    // The first block only names the values npm start prints: set them as it says.
    for (const name of ['GW', 'ADMIN_TOKEN', 'MERCHANT_ID', 'CLIENT_KEY', 'CLIENT_SECRET', 'PARTNER_ID']) {
      assert.match(placeholders, new RegExp(`\\b${name}=`));
    }
    const port = String(await closedPort());
    const script = steps.join('\n').replaceAll('9000', port);
    const r = await runBash(
      script,
      {
        PATH: process.env.PATH,
        HOME: process.env.HOME,
        TMPDIR: process.env.TMPDIR,
        GW: gw.url,
        ADMIN_TOKEN,
        MERCHANT_ID: merchant.id,
        CLIENT_KEY: merchant.clientKey,
        CLIENT_SECRET: merchant.clientSecret,
        PARTNER_ID: merchant.partnerId,
      },
      60_000,
    );
    assert.equal(r.code, 0, `${r.stdout}\n${r.stderr}`);
    assert.match(r.stdout, /^token: \S{16}…$/m);
    assert.match(r.stdout, /"responseCode":"2004700"/);
    assert.match(r.stdout, /"latestTransactionStatus":"00"/);
    assert.match(r.stdout, /^callback signature valid$/m);
    const ref = /"referenceNo":"([^"]+)"/.exec(r.stdout)?.[1];
    assert.ok(ref);
    assert.equal((await gw.admin('GET', `/transactions/${ref}`)).body.status, '00');
  });
});

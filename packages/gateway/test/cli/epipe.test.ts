import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { after, before, describe, it } from 'node:test';
import { ADMIN_TOKEN, startGateway, type TestGateway } from '../helpers/gateway.ts';
import { GATEWAY_ROOT } from '../helpers/process.ts';

describe('snapgate merchant list | head -1', () => {
  let gw: TestGateway;
  before(async () => {
    gw = await startGateway({ env: { SNAPGATE_RATE_LIMIT: 'off' } });
    // Far more than a pipe holds (64 KiB), so the CLI is still writing when the reader goes away.
    for (let batch = 0; batch < 25; batch++) {
      await Promise.all(
        Array.from({ length: 20 }, (_, i) => gw.createMerchant({ name: `Toko ${batch}-${i} ${'x'.repeat(80)}` })),
      );
    }
  });
  after(() => gw.close());

  it('exits quietly when stdout closes after the first line', async () => {
    const child = spawn(
      process.execPath,
      ['--import', 'tsx', 'bin/snapgate.js', 'merchant', 'list', '--limit', '500'],
      {
        cwd: GATEWAY_ROOT,
        env: { PATH: process.env.PATH ?? '', SNAPGATE_URL: gw.url, SNAPGATE_ADMIN_TOKEN: ADMIN_TOKEN },
        stdio: ['ignore', 'pipe', 'pipe'],
      },
    );
    let stderr = '';
    child.stderr.on('data', (c) => {
      stderr += String(c);
    });
    // `head -1`: read up to the first newline, then close the pipe.
    const firstLine = await new Promise<string>((resolve, reject) => {
      let seen = '';
      child.stdout.on('data', (c) => {
        seen += String(c);
        const nl = seen.indexOf('\n');
        if (nl >= 0) {
          child.stdout.destroy();
          resolve(seen.slice(0, nl));
        }
      });
      child.stdout.on('end', () => reject(new Error(`stdout ended before a line: ${stderr}`)));
    });
    const [code, signal] = await new Promise<[number | null, NodeJS.Signals | null]>((resolve) =>
      child.on('close', (c, s) => resolve([c, s])),
    );
    assert.match(firstLine, /^id\s+name\s+clientKey/);
    assert.equal(stderr, '', 'nothing on stderr, and no stack trace');
    assert.equal(signal, null);
    assert.equal(code, 0);
  });
});

// Start-up failures end in one line that says what went wrong and what to do, exit code 1, and
// no stack trace: a port in use, a database file that cannot be opened, PostgreSQL unreachable.
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { createServer, type Server } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, describe, it } from 'node:test';
import { GATEWAY_ROOT } from './helpers/process.ts';
import { closedPort } from './helpers/receiver.ts';

function startFails(env: Record<string, string>) {
  return new Promise<{ code: number | null; stderr: string; stdout: string; ms: number }>((resolve) => {
    const started = Date.now();
    const child = spawn(process.execPath, ['--import', 'tsx', 'src/main.ts'], {
      cwd: GATEWAY_ROOT,
      env: {
        PATH: process.env.PATH ?? '',
        SNAPGATE_LOG_LEVEL: 'warn',
        SNAPGATE_MASTER_KEY: Buffer.alloc(32, 9).toString('base64'),
        ...env,
      },
    });
    let stderr = '';
    let stdout = '';
    child.stderr.on('data', (c) => {
      stderr += c;
    });
    child.stdout.on('data', (c) => {
      stdout += c;
    });
    const timer = setTimeout(() => child.kill('SIGKILL'), 30_000);
    child.on('exit', (code) => {
      clearTimeout(timer);
      resolve({ code, stderr, stdout, ms: Date.now() - started });
    });
  });
}

const oneLine = (stderr: string) => {
  const lines = stderr.trim().split('\n');
  assert.equal(lines.length, 1, `one line, got:\n${stderr}`);
  assert.doesNotMatch(stderr, /\n\s+at /, 'no stack trace');
  return lines[0] as string;
};

describe('start-up failures', { timeout: 90_000 }, () => {
  const dir = mkdtempSync(join(tmpdir(), 'snapgate-startup-'));
  const servers: Server[] = [];
  after(() => {
    for (const s of servers) s.close();
    rmSync(dir, { recursive: true, force: true });
  });

  it('names the port in use and SNAPGATE_PORT', async () => {
    const held = createServer();
    servers.push(held);
    await new Promise<void>((resolve) => held.listen(0, '127.0.0.1', resolve));
    const port = (held.address() as { port: number }).port;
    const r = await startFails({ SNAPGATE_DB: join(dir, 'a.db'), SNAPGATE_PORT: String(port) });
    assert.equal(r.code, 1);
    assert.match(
      oneLine(r.stderr),
      new RegExp(`^snapgate: port ${port} on 127\\.0\\.0\\.1 is already in use: .*SNAPGATE_PORT`),
    );
  });

  it('names the database file, the reason and SNAPGATE_DB', async () => {
    const notADir = join(dir, 'file');
    writeFileSync(notADir, 'x');
    const r = await startFails({ SNAPGATE_DB: join(notADir, 'gw.db'), SNAPGATE_PORT: '0' });
    assert.equal(r.code, 1);
    assert.match(
      oneLine(r.stderr),
      /^snapgate: cannot open the SQLite database .*file\/gw\.db \((ENOTDIR|EEXIST)[^)]*\): set SNAPGATE_DB/,
    );
  });

  it('tries PostgreSQL for SNAPGATE_DB_CONNECT_TIMEOUT_SEC, then names host, port and reason', async () => {
    const port = await closedPort();
    const r = await startFails({
      SNAPGATE_DATABASE_URL: `postgres://snap:secret-pw@127.0.0.1:${port}/snapgate`,
      SNAPGATE_DB_CONNECT_TIMEOUT_SEC: '2',
      SNAPGATE_PORT: '0',
    });
    assert.equal(r.code, 1);
    const line = oneLine(r.stderr);
    assert.match(
      line,
      new RegExp(
        `^snapgate: PostgreSQL at 127\\.0\\.0\\.1:${port}/snapgate is unreachable \\(.*ECONNREFUSED.*tried for 2 s\\)`,
      ),
    );
    assert.match(line, /SNAPGATE_DB_CONNECT_TIMEOUT_SEC/);
    assert.doesNotMatch(line, /secret-pw/, 'no password in the message');
    assert.ok(r.ms >= 2_000, `it kept trying (${r.ms} ms)`);
  });

  it('still reports invalid settings all at once (exit code 2)', async () => {
    const r = await startFails({ SNAPGATE_PORT: 'eighty', SNAPGATE_MODE: 'prod' });
    assert.equal(r.code, 2);
    assert.match(r.stderr, /SNAPGATE_PORT/);
    assert.match(r.stderr, /SNAPGATE_MODE/);
  });
});

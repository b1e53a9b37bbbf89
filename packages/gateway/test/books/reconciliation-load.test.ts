// Red team finding (reconciliation uploads, 1): a report of 100,000 lines held the gateway's event
// loop 2.3-3 s while it was read and matched, and reading the run back held it again (the run list
// was 26 MiB, the console's page of the run 48 MiB of HTML), as often as a read key asked. Now the
// report is read on a thread of its own, matched and stored in slices, and its problems are read a
// page at a time. A probe asks a real gateway process for GET /healthz every 50 ms throughout: no
// probe may wait over a second (a generous bound: this asserts that the loop stays free, it is not
// a benchmark). Real HTTP, a real SQLite file.
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { setTimeout as sleep } from 'node:timers/promises';
import { formatJakartaTimestamp } from '@snapgate/snap';
import { signInByHand } from '../console/console-gateway.ts';
import { adminApiOf, type GatewayProcess, spawnGateway } from '../helpers/process.ts';

const ADMIN = 'reconciliation-load-admin-token-0000';
const admin = adminApiOf(ADMIN);
const LINES = 100_000;
const PROBE_EVERY_MS = 50;
const MAX_WAIT_MS = 1_000;

/** A probe's answer: when it was asked (ms from the probe's start) and how long it waited. */
interface Wait {
  atMs: number;
  waitMs: number;
}

/** Asks GET /healthz every 50 ms until stopped. */
function probe(url: string) {
  const waits: Wait[] = [];
  const startedAt = performance.now();
  let isStopped = false;
  const running = (async () => {
    while (!isStopped) {
      const asked = performance.now();
      const res = await fetch(`${url}/healthz`);
      await res.arrayBuffer();
      assert.equal(res.status, 200);
      waits.push({ atMs: asked - startedAt, waitMs: performance.now() - asked });
      await sleep(PROBE_EVERY_MS);
    }
  })();
  return {
    /** Resolves once the probe has had an answer: its connection is open. */
    async ready(): Promise<void> {
      while (waits.length === 0) await sleep(10);
    },
    async stop(): Promise<Wait[]> {
      isStopped = true;
      await running;
      return waits;
    },
  };
}

/** Runs `work` under a probe and asserts no probe waited over a second. */
async function withProbe<T>(
  gw: GatewayProcess,
  what: string,
  work: () => Promise<T>,
  tell: (message: string) => void,
): Promise<T> {
  const p = probe(gw.url);
  await p.ready();
  const started = performance.now();
  let out: T;
  try {
    out = await work();
  } finally {
    const waits = await p.stop();
    const longest = [...waits].sort((a, b) => b.waitMs - a.waitMs).slice(0, 3);
    const shown = longest.map((w) => `${Math.round(w.waitMs)} ms at +${Math.round(w.atMs)} ms`).join(', ');
    tell(`${what}: ${Math.round(performance.now() - started)} ms, ${waits.length} probes, the longest ${shown}`);
    assert.ok(waits.length >= 2, `${what}: the probe ran (${waits.length} answers)`);
    assert.ok((longest[0]?.waitMs ?? 0) < MAX_WAIT_MS, `${what}: a probe of GET /healthz waited ${shown}`);
  }
  return out;
}

describe('a report of 100,000 lines, read, matched and read back without holding the event loop', () => {
  let dir: string;
  let gw: GatewayProcess;
  let acquirerId: string;
  before(async () => {
    dir = mkdtempSync(join(tmpdir(), 'snapgate-reconciliation-load-'));
    gw = await spawnGateway({ SNAPGATE_DB: join(dir, 'snapgate.db'), SNAPGATE_ADMIN_TOKEN: ADMIN });
    const providers = (await admin(gw, 'GET', '/providers?limit=500')).body.items as Array<{
      id: string;
      name: string;
    }>;
    acquirerId = providers.find((p) => p.name === 'Sandbox Acquirer')?.id as string;
    assert.ok(acquirerId, 'the sandbox acquirer is registered');
  });
  after(async () => {
    gw?.child.kill('SIGTERM');
    await gw?.exited;
    rmSync(dir, { recursive: true, force: true });
  });

  /** Posts a report; its answer, which carries a page of problems, not all of them. */
  async function upload(body: Uint8Array<ArrayBuffer>, contentType: string) {
    const res = await fetch(`${gw.url}/admin/v1/providers/${acquirerId}/reconciliations`, {
      method: 'POST',
      headers: { authorization: `Bearer ${ADMIN}`, 'content-type': contentType },
      body,
    });
    const text = await res.text();
    assert.equal(res.status, 201, text.slice(0, 500));
    assert.ok(text.length < 64 * 1024, `the answer is ${text.length} bytes`);
    return JSON.parse(text);
  }

  it('answers GET /healthz within a second throughout a CSV upload and the reading back of its 100,000 problems', {
    timeout: 300_000,
  }, async (t) => {
    const tell = (message: string) => t.diagnostic(message);
    const at = formatJakartaTimestamp(Date.now());
    const lines = ['referenceNo,providerReference,amount,paidAt,status'];
    // References the gateway does not know: every line is a problem, the most a run can hold.
    for (let i = 1; i <= LINES; i++) lines.push(`LOAD${String(i).padStart(8, '0')},,10000.00,${at},00`);
    // Made before the probe starts: the test's own work must not delay the probe's answers.
    const csv = new TextEncoder().encode(`${lines.join('\n')}\n`);

    const run = await withProbe(gw, 'the CSV upload', () => upload(csv, 'text/csv'), tell);
    assert.deepEqual([run.lines, run.matched, run.problemCount, run.problems.length], [LINES, 0, LINES, 100]);
    assert.equal(run.problems[0].line, 1);
    assert.equal(typeof run.nextCursor, 'string');

    // Read back with a read key, as the red team did: the list, the run, every page, the console.
    const key = (await admin(gw, 'POST', '/admin-keys', { name: 'load-reader', scope: 'read' })).body.key as string;
    const read = async (path: string) => {
      const res = await fetch(`${gw.url}${path}`, { headers: { authorization: `Bearer ${key}` } });
      const text = await res.text();
      assert.equal(res.status, 200, `${path}: ${text.slice(0, 300)}`);
      return text;
    };
    await withProbe(
      gw,
      'the reading back',
      async () => {
        const list = await read(`/admin/v1/providers/${acquirerId}/reconciliations?limit=500`);
        assert.ok(list.length < 64 * 1024, `the run list is ${list.length} bytes`);
        assert.equal(JSON.parse(list).items[0].problemCount, LINES);
        assert.deepEqual(JSON.parse(await read(`/admin/v1/reconciliations/${run.id}`)).problems, run.problems);
        let cursor: string | null = run.nextCursor;
        let seen = run.problems.length;
        while (cursor !== null) {
          const page = JSON.parse(
            await read(`/admin/v1/reconciliations/${run.id}/problems?limit=500&cursor=${encodeURIComponent(cursor)}`),
          );
          assert.equal(page.items[0].line, seen + 1, 'pages follow each other in line order');
          seen += page.items.length;
          cursor = page.nextCursor;
        }
        assert.equal(seen, LINES);

        const session = await signInByHand(gw.url, key);
        for (const path of [
          `/console/books/reconciliations/${run.id}`,
          `/console/books/reconciliations/${run.id}?cursor=${encodeURIComponent(run.nextCursor)}`,
          `/console/books/reconciliations/providers/${acquirerId}`,
          '/console/books/reconciliations',
        ]) {
          const res = await fetch(`${gw.url}${path}`, { headers: { cookie: session } });
          const html = await res.text();
          assert.equal(res.status, 200, path);
          assert.ok(html.length < 512 * 1024, `${path} is ${html.length} bytes of HTML`);
        }
      },
      tell,
    );
  });

  it('answers GET /healthz within a second throughout a JSON upload of 100,000 items', {
    timeout: 300_000,
  }, async (t) => {
    const paidAt = formatJakartaTimestamp(Date.now());
    const items = Array.from({ length: LINES }, (_, i) => ({ referenceNo: `J${i + 1}`, amount: '1.00', paidAt }));
    const json = new TextEncoder().encode(JSON.stringify({ items }));
    assert.ok(json.length < 8 * 1024 * 1024, `${json.length} bytes, under the 8 MiB limit`);
    const run = await withProbe(
      gw,
      'the JSON upload',
      () => upload(json, 'application/json'),
      (m) => t.diagnostic(m),
    );
    assert.deepEqual([run.lines, run.problemCount, run.problems.length], [LINES, LINES, 100]);
  });
});

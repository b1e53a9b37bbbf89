// A request can be traced: X-Request-Id on every answer and on the log lines of a refused SNAP
// request (with the client key, path and X-EXTERNAL-ID), ISO times in the log, and a request
// duration histogram that measures real durations per operation and responseCode.
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { startGateway, type TestGateway } from '../helpers/gateway.ts';
import { authenticate, snapCall } from '../helpers/snap.ts';

describe('request ids, logs and the duration histogram', () => {
  let gw: TestGateway;
  before(async () => {
    gw = await startGateway();
  });
  after(() => gw.close());

  it('answers every request with an X-Request-Id: the caller’s when sane, else a fresh one', async () => {
    const mine = await fetch(`${gw.url}/healthz`, { headers: { 'x-request-id': 'trace-abc.123' } });
    assert.equal(mine.headers.get('x-request-id'), 'trace-abc.123');
    const fresh = await fetch(`${gw.url}/healthz`);
    assert.match(fresh.headers.get('x-request-id') ?? '', /^[0-9a-f-]{36}$/);
    const hostile = await fetch(`${gw.url}/healthz`, { headers: { 'x-request-id': 'a b<script>' } });
    assert.match(hostile.headers.get('x-request-id') ?? '', /^[0-9a-f-]{36}$/);
    const refused = await fetch(`${gw.url}/admin/v1/merchants`);
    assert.equal(refused.status, 401);
    assert.ok(refused.headers.get('x-request-id'));
  });

  it('logs a refused SNAP request with its request id, client key, path and X-EXTERNAL-ID, at an ISO time', async () => {
    const m = await gw.createMerchant();
    const c = await authenticate(gw.url, m);
    const r = await snapCall(
      gw.url,
      c,
      '/api/snap/v1.0/qr/qr-mpm-query',
      { originalReferenceNo: 'X', serviceCode: '47' },
      { externalId: '424242', headers: { 'x-request-id': 'trace-refused-1', 'x-signature': 'forged' } },
    );
    assert.equal(r.body.responseCode, '4015100');
    const line = gw.logs.map((l) => JSON.parse(l)).find((l) => l.reqId === 'trace-refused-1');
    assert.ok(line, 'a log line carries the request id');
    assert.equal(line.msg, 'snap request refused');
    assert.equal(line.clientKey, m.partnerId);
    assert.equal(line.path, '/api/snap/v1.0/qr/qr-mpm-query');
    assert.equal(line.externalId, '424242');
    assert.equal(line.responseCode, '4015100');
    assert.match(line.time, /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$/);
    assert.equal(JSON.stringify(line).includes('forged'), false, 'no signature in the log');
  });

  it('measures request durations per operation and responseCode', async () => {
    const m = await gw.createMerchant();
    const c = await authenticate(gw.url, m);
    for (let i = 0; i < 3; i++) {
      await snapCall(gw.url, c, '/api/snap/v1.0/qr/qr-mpm-generate', {
        partnerReferenceNo: `OBS-${i}`,
        amount: { value: '1.00', currency: 'IDR' },
      });
    }
    const text = await (await fetch(`${gw.url}/metrics`)).text();
    const count =
      /snapgate_snap_request_duration_seconds_count\{operation="qr-mpm-generate",responseCode="2004700"\} (\d+)/.exec(
        text,
      );
    const sum =
      /snapgate_snap_request_duration_seconds_sum\{operation="qr-mpm-generate",responseCode="2004700"\} ([\d.e-]+)/.exec(
        text,
      );
    assert.ok(count && sum, text.slice(0, 500));
    assert.equal(Number(count[1]), 3);
    assert.ok(Number(sum[1]) > 0, 'real durations, not zeros');
  });
});

describe('the SQLite writer’s group commits', () => {
  const commitFigures = (text: string) => {
    const figure = (name: string) => {
      const m = new RegExp(`^${name} ([\\d.e+-]+)$`, 'm').exec(text);
      assert.ok(m, `${name} is exported`);
      return Number(m[1]);
    };
    return {
      commits: figure('snapgate_sqlite_commit_seconds_count'),
      seconds: figure('snapgate_sqlite_commit_seconds_sum'),
      writesCounted: figure('snapgate_sqlite_commit_writes_count'),
      writes: figure('snapgate_sqlite_commit_writes_sum'),
    };
  };

  for (const writer of ['thread', 'inline'] as const) {
    it(`counts each commit's duration and writes (${writer} writer)`, async () => {
      const { SqliteStore } = await import('../../src/store/sqlite/sqlite-store.ts');
      const { mkdtempSync, rmSync } = await import('node:fs');
      const { tmpdir } = await import('node:os');
      const { join } = await import('node:path');
      const dir = mkdtempSync(join(tmpdir(), 'snapgate-commits-'));
      const store = new SqliteStore({ file: join(dir, 'gw.db'), writer });
      assert.equal(store.writer.kind, writer);
      const gw = await startGateway({ store });
      try {
        const before = commitFigures(await (await fetch(`${gw.url}/metrics`)).text());
        const m = await gw.createMerchant();
        const c = await authenticate(gw.url, m);
        const made = await Promise.all(
          [1, 2, 3].map((i) =>
            snapCall(gw.url, c, '/api/snap/v1.0/qr/qr-mpm-generate', {
              partnerReferenceNo: `COMMIT-${i}`,
              amount: { value: '1.00', currency: 'IDR' },
            }),
          ),
        );
        for (const r of made) assert.equal(r.body.responseCode, '2004700');
        const after = commitFigures(await (await fetch(`${gw.url}/metrics`)).text());
        // Answered only after their commit: the three creates are counted by now.
        assert.ok(after.commits > before.commits, 'commits counted');
        assert.equal(after.writesCounted, after.commits, 'one observation of each histogram per commit');
        assert.ok(
          after.writes - before.writes >= 3,
          `the three creates among the writes (${after.writes - before.writes})`,
        );
        assert.ok(after.seconds > before.seconds, 'real durations, not zeros');
      } finally {
        await gw.close();
        rmSync(dir, { recursive: true, force: true });
      }
    });
  }
});

describe('docs/grafana-dashboard.json', () => {
  it('queries only metrics the gateway exports', async () => {
    const { readFileSync } = await import('node:fs');
    const dashboard = JSON.parse(
      readFileSync(new URL('../../../../docs/grafana-dashboard.json', import.meta.url), 'utf8'),
    ) as { panels: Array<{ targets: Array<{ expr: string }> }> };
    const gw = await startGateway();
    try {
      const m = await gw.createMerchant();
      const c = await authenticate(gw.url, m);
      await snapCall(gw.url, c, '/api/snap/v1.0/qr/qr-mpm-query', { originalReferenceNo: 'X', serviceCode: '47' });
      const exported = new Set(
        [...(await (await fetch(`${gw.url}/metrics`)).text()).matchAll(/^# TYPE (\S+) /gm)].map((x) => x[1]),
      );
      const used = new Set(
        dashboard.panels.flatMap((p) =>
          p.targets.flatMap((t) => [...t.expr.matchAll(/\bsnapgate_[a-z0-9_]+/g)].map((x) => x[0])),
        ),
      );
      assert.ok(used.size >= 6);
      for (const name of used) {
        const base = name.replace(/_(bucket|sum|count)$/, '');
        assert.ok(exported.has(name) || exported.has(base), `${name} is exported`);
      }
    } finally {
      await gw.close();
    }
  });
});

describe('the request id in the notification attempt log', () => {
  it('sends the X-Request-Id of the request that caused a notification with every attempt, and logs it', async () => {
    const { startReceiver, waitFor } = await import('../helpers/receiver.ts');
    const receiver = await startReceiver();
    const gw = await startGateway({ dispatch: true });
    try {
      const m = await gw.createMerchant({ callbackBaseUrl: receiver.baseUrl });
      const c = await authenticate(gw.url, m);
      const qr = await snapCall(gw.url, c, '/api/snap/v1.0/qr/qr-mpm-generate', {
        partnerReferenceNo: 'TRACE-1',
        amount: { value: '1.00', currency: 'IDR' },
      });
      const paid = await fetch(`${gw.url}/admin/v1/sandbox/qris/${qr.body.referenceNo}/pay`, {
        method: 'POST',
        headers: {
          authorization: 'Bearer test-admin-token-0123456789',
          'content-type': 'application/json',
          'x-request-id': 'trace-pay-42',
        },
        body: '{}',
      });
      assert.equal(paid.status, 200);
      await waitFor('the callback', () => receiver.received.length >= 1);
      assert.equal(receiver.received[0]?.headers['x-request-id'], 'trace-pay-42');
      const note = (await gw.admin('GET', `/notifications?referenceNo=${qr.body.referenceNo}`)).body.items[0];
      const shown = await waitFor('the attempt recorded', async () => {
        const s = (await gw.admin('GET', `/notifications/${note.id}`)).body;
        return s.attempts.length > 0 ? s : undefined;
      });
      assert.equal(shown.attempts[0].requestHeaders['x-request-id'], 'trace-pay-42');
    } finally {
      await gw.close();
      await receiver.close();
    }
  });
});

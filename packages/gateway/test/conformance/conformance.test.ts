import assert from 'node:assert/strict';
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { after, before, describe, it } from 'node:test';
import { request } from 'undici';
import {
  type ConformanceReport,
  formatJson,
  formatJunit,
  formatText,
  runConformance,
  type ScenarioResult,
  SUITES,
  summarise,
} from '../../src/conformance/index.ts';
import { startGateway, type TestGateway, type TestMerchant } from '../helpers/gateway.ts';
import { SQLITE } from '../helpers/store-under-test.ts';
import { conformanceSuite } from './conformance-suite.ts';
import { checkWellFormed, type XmlElement } from './xml-check.ts';

conformanceSuite(SQLITE);

async function listen(
  handler: (req: IncomingMessage, res: ServerResponse) => void,
): Promise<{ url: string; server: Server }> {
  const server = createServer(handler);
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return { url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`, server };
}
const close = (server: Server) => new Promise<void>((resolve) => server.close(() => resolve()));
const readBody = async (req: IncomingMessage) => {
  const chunks: Buffer[] = [];
  for await (const c of req) chunks.push(c as Buffer);
  return Buffer.concat(chunks);
};
const SERVICE_OF = new Map(SUITES.map((s) => [s.operation.path, s.operation.service]));

/** A proxy in front of snapgate that spoils some answers. */
async function brokenProxy(
  target: string,
  spoil: (path: string, status: number, body: string) => { status: number; body: string },
) {
  return listen(async (req, res) => {
    const body = await readBody(req);
    const headers: Record<string, string> = {};
    for (const [k, v] of Object.entries(req.headers)) if (typeof v === 'string' && k !== 'host') headers[k] = v;
    const up = await request(`${target}${req.url}`, { method: req.method as 'POST', headers, body });
    const text = await up.body.text();
    const out = spoil(req.url ?? '', up.statusCode, text);
    res.writeHead(out.status, { 'content-type': 'application/json' }).end(out.body);
  });
}

const result = (report: ConformanceReport, id: string): ScenarioResult => {
  const r = report.results.find((x) => x.id === id);
  assert.ok(r, `no result ${id}`);
  return r;
};

describe('the conformance runner fails a broken server, saying why', () => {
  let gw: TestGateway;
  let merchant: TestMerchant;
  const servers: Server[] = [];
  before(async () => {
    gw = await startGateway();
    merchant = await gw.createMerchant();
  });
  after(async () => {
    for (const s of servers) await close(s);
    await gw.close();
  });
  const run = (url: string, only?: string[]) =>
    runConformance({
      url,
      clientKey: merchant.clientKey,
      clientSecret: merchant.clientSecret,
      partnerId: merchant.partnerId,
      ...(only ? { only } : {}),
    });

  it('a server that answers 200 Successful to everything fails every negative scenario', async () => {
    const { url, server } = await listen(async (req, res) => {
      await readBody(req);
      const svc = SERVICE_OF.get(req.url ?? '') ?? '00';
      res.writeHead(200, { 'content-type': 'application/json' });
      res.end(JSON.stringify({ responseCode: `200${svc}00`, responseMessage: 'Successful', accessToken: 'anything' }));
    });
    servers.push(server);
    const report = await run(url);
    assert.equal(report.ok, false);
    for (const r of report.results.filter((x) => x.kind === 'negative')) assert.equal(r.passed, false, r.id);
    assert.match(
      result(report, 'token-bad-signature').reason,
      /expected HTTP 401 with responseCode 40171xx, got HTTP 200/,
    );
    assert.match(
      result(report, 'qris-generate-missing-amount').reason,
      /expected HTTP 400 with responseCode 4004702, got HTTP 200 with 2004700 "Successful"/,
    );
    assert.match(result(report, 'qris-generate-ok').reason, /partnerReferenceNo should echo "CF.*Q1", got nothing/);
    // A row that needs the QRIS the failed row should have made says so.
    assert.match(result(report, 'qris-query-ok').reason, /^not run: it needs qrisReferenceNo/);
    assert.match(formatText(report), /FAIL {2}qris-generate {2}qris-generate-ok/);
  });

  it('a server that answers 500 to a refused request fails with "never answer 5xx"', async () => {
    const { url, server } = await brokenProxy(gw.url, (path, status, body) =>
      status === 401
        ? {
            status: 500,
            body: JSON.stringify({ responseCode: `500${SERVICE_OF.get(path)}00`, responseMessage: 'General Error' }),
          }
        : { status, body },
    );
    servers.push(server);
    const report = await run(url, ['token', 'qris-generate']);
    const bad = result(report, 'qris-generate-bad-signature');
    assert.equal(bad.passed, false);
    assert.match(bad.reason, /the server answered HTTP 500 .*a SNAP server must never answer 5xx to this input/);
    assert.equal(result(report, 'qris-generate-ok').passed, true);
    assert.equal(result(report, 'qris-generate-missing-amount').passed, true);
  });

  it('a server whose repeated answers differ fails idempotency; one that ignores reuse fails the conflict', async () => {
    let n = 0;
    const { url, server } = await brokenProxy(gw.url, (_path, status, body) => {
      if (status === 200 && body.includes('"referenceNo"')) return { status, body: body.replace('{', `{"n":${++n},`) };
      if (status === 409)
        return { status: 200, body: body.replace(/"responseCode":"409(\d\d)0\d"/, '"responseCode":"200$100"') };
      return { status, body };
    });
    servers.push(server);
    const report = await run(url, ['token', 'qris-generate']);
    assert.match(
      result(report, 'qris-generate-idempotent-replay').reason,
      /the repeated request \(same X-EXTERNAL-ID, same body\) got another answer than the first.*byte for byte/,
    );
    assert.match(
      result(report, 'qris-generate-external-id-conflict').reason,
      /expected HTTP 409 with responseCode 40947xx, got HTTP 200/,
    );
  });

  it('a server whose responseCode disagrees with its HTTP status, or names another service, fails', async () => {
    const { url, server } = await brokenProxy(gw.url, (path, status, body) => {
      if (path.endsWith('qr-mpm-generate') && status === 400) return { status: 200, body };
      if (path.endsWith('qr-mpm-generate') && status === 401) return { status, body: body.replace(/"40147/, '"40199') };
      return { status, body };
    });
    servers.push(server);
    const report = await run(url, ['token', 'qris-generate']);
    assert.match(
      result(report, 'qris-generate-missing-amount').reason,
      /responseCode 4004702 does not start with the HTTP status 200/,
    );
    assert.match(result(report, 'qris-generate-bad-signature').reason, /carries service code 99, not 47/);
  });

  it('a server that is not there fails every scenario with "no answer"', async () => {
    const { url, server } = await listen(() => undefined);
    await close(server);
    const report = await run(url, ['token']);
    assert.equal(report.passed, 0);
    assert.match(result(report, 'token-ok').reason, /^no answer from the server: ECONNREFUSED/);
  });
});

describe('conformance reports', () => {
  const nasty = 'a<b & "c" \'d\' ]]> \u0000 \u0007 \ud800 \ufffe é 😀\r\nnext';
  const results: ScenarioResult[] = [
    { group: 'token', id: 't-1', title: 'ok <one>', kind: 'positive', passed: true, reason: 'passed', durationMs: 3 },
    {
      group: 'token',
      id: 't-2',
      title: `fails ${nasty}`,
      kind: 'negative',
      passed: false,
      reason: `expected HTTP 401, got ${nasty}`,
      durationMs: 5,
      request: { method: 'POST', url: 'http://x/p', path: '/p', headers: { 'x-signature': '[redacted]' }, body: nasty },
      response: { status: 200, headers: {}, body: nasty },
    },
    { group: 'qris & co', id: 'q-1', title: 'q', kind: 'negative', passed: false, reason: 'nope', durationMs: 7 },
  ];
  const report = summarise('snap-server-conformance', 'http://x', new Date('2026-11-23T03:00:00Z'), 42, results);

  it('JUnit XML: well-formed, a testsuite per group, counts right, everything escaped', () => {
    const xmlText = formatJunit(report);
    const root = checkWellFormed(xmlText);
    assert.equal(root.name, 'testsuites');
    assert.equal(root.attributes.tests, '3');
    assert.equal(root.attributes.failures, '2');
    const suites = root.children;
    assert.deepEqual(
      suites.map((s) => [s.name, s.attributes.name, s.attributes.tests, s.attributes.failures]),
      [
        ['testsuite', 'token', '2', '1'],
        ['testsuite', 'qris & co', '1', '1'],
      ],
    );
    const cases = suites.flatMap((s) => s.children);
    assert.equal(cases.length, 3);
    assert.ok(cases.every((c) => c.name === 'testcase'));
    const failures = cases.flatMap((c) => c.children) as XmlElement[];
    assert.equal(failures.length, 2);
    const f = failures[0] as XmlElement;
    assert.equal(f.name, 'failure');
    // Characters XML may hold come back intact; the ones it may not are written as \uXXXX.
    assert.ok(
      f.attributes.message?.startsWith(
        'expected HTTP 401, got a<b & "c" \'d\' ]]> \\u0000 \\u0007 \\ud800 \\ufffe é 😀',
      ),
    );
    assert.ok(f.text.includes('POST /p'));
    assert.ok(f.text.includes('x-signature: [redacted]'));
    assert.equal(
      (cases[1] as XmlElement).attributes.name,
      't-2: fails a<b & "c" \'d\' ]]> \\u0000 \\u0007 \\ud800 \\ufffe é 😀\r\nnext',
    );
    assert.equal((cases[0] as XmlElement).attributes.classname, 'snap-server-conformance.token');
  });

  it('text: a line per scenario and a summary; JSON: the whole report', () => {
    const text = formatText(report);
    const lines = text.trimEnd().split('\n');
    assert.equal(lines.length, 1 + 3 + 1);
    assert.match(lines[1] as string, /^PASS {2}token {2}t-1 {2}ok <one>$/);
    assert.match(lines[2] as string, /^FAIL {2}token {2}t-2 /);
    assert.equal(lines.at(-1), '1 of 3 scenarios passed, 2 failed (0.0 s)');
    const parsed = JSON.parse(formatJson(report));
    assert.equal(parsed.total, 3);
    assert.equal(parsed.ok, false);
    assert.equal(parsed.results[1].response.body, nasty);
  });
});

import assert from 'node:assert/strict';
import { connect } from 'node:net';
import { after, before, describe, it } from 'node:test';
import { formatJakartaTimestamp, hmacSha256Base64 } from '@snapgate/snap';
import { Pool } from 'undici';
import { startGateway, type TestGateway, type TestMerchant } from '../helpers/gateway.ts';
import { TOKEN_PATH } from '../helpers/snap.ts';

// A seeded generator, so a failure names the case that reproduces it.
function prng(seed: number) {
  let s = seed >>> 0;
  return () => {
    s = (s + 0x6d2b79f5) >>> 0;
    let t = s;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

type Rand = () => number;
const pick = <T>(r: Rand, xs: readonly T[]): T => xs[Math.floor(r() * xs.length)] as T;
const printable = (r: Rand, n: number) =>
  Array.from({ length: n }, () => String.fromCharCode(0x20 + Math.floor(r() * 95))).join('');
const bytes = (r: Rand, n: number) => Buffer.from(Array.from({ length: n }, () => Math.floor(r() * 256)));

function headerValue(r: Rand, valid: string): string | undefined {
  if (r() < 0.75) return valid;
  return pick(r, [
    () => undefined,
    () => '',
    () => valid,
    () => printable(r, 1 + Math.floor(r() * 40)),
    () => printable(r, 2000 + Math.floor(r() * 4000)),
    () => `${valid} `,
    () => Buffer.from('é€漢字').toString('latin1'),
    () => valid.toUpperCase(),
  ])();
}

function body(r: Rand): string | Buffer {
  if (r() < 0.3) return '{"grantType":"client_credentials"}';
  return pick<() => string | Buffer>(r, [
    () => '{"grantType":"client_credentials"}',
    () => '',
    () => 'null',
    () => '[]',
    () => '"client_credentials"',
    () => '{"grantType":null}',
    () => '{"grantType":["client_credentials"]}',
    () => '{"grantType":"client_credentials"',
    () => `{"grantType":"${printable(r, 10).replace(/["\\]/g, '')}"}`,
    () => bytes(r, Math.floor(r() * 300)),
    () => Buffer.concat([Buffer.from('{"grantType":"'), bytes(r, 20), Buffer.from('"}')]),
    () => `{"a":${'['.repeat(5000)}${']'.repeat(5000)}}`,
    () => `{"grantType":"client_credentials","pad":"${'x'.repeat(Math.floor(r() * 100_000))}"}`,
    () => '\ufeff{"grantType":"client_credentials"}',
    () => '{"__proto__":{"grantType":"client_credentials"}}',
  ])();
}

describe('the token endpoint under generated malformed requests', () => {
  let gw: TestGateway;
  let m: TestMerchant;
  before(async () => {
    gw = await startGateway({ env: { SNAPGATE_RATE_LIMIT: 'off', SNAPGATE_LOG_LEVEL: 'warn' } });
    m = await gw.createMerchant();
  });
  after(() => gw.close());

  it('never answers 5xx and always answers a SNAP body whose responseCode starts with the HTTP status (3,000 cases)', async () => {
    const pool = new Pool(gw.url, { connections: 16, headersTimeout: 5000, bodyTimeout: 5000 });
    const r = prng(20261121);
    const failures: string[] = [];
    const seen = new Map<number, number>();
    const N = Number(process.env.FUZZ_N ?? 3000);
    let next = 0;
    const worker = async () => {
      while (next < N) {
        const i = next++;

        const ts = formatJakartaTimestamp(Date.now());
        const validSig = hmacSha256Base64(m.clientSecret, `${m.clientKey}|${ts}`);
        const headers: Record<string, string> = {};
        const candidates: Array<[string, string]> = [
          [
            'content-type',
            pick(r, [
              'application/json',
              'text/plain',
              'application/json; charset=utf-8',
              'multipart/form-data; boundary=x',
              'application/x-www-form-urlencoded',
            ]),
          ],
          ['x-client-key', pick(r, [m.clientKey, 'unknown'])],
          ['x-timestamp', pick(r, [ts, new Date().toISOString(), '2026-02-30T10:00:00Z', 'yesterday'])],
          ['x-signature', validSig],
        ];
        for (const [name, valid] of candidates) {
          const v = headerValue(r, valid);
          if (v !== undefined) headers[name] = v;
        }
        if (r() < 0.1) headers['content-encoding'] = pick(r, ['gzip', 'br', 'identity', 'x-bogus']);
        const method = r() < 0.05 ? pick(r, ['GET', 'PUT', 'DELETE', 'PATCH']) : 'POST';
        const path = r() < 0.05 ? `${TOKEN_PATH}${pick(r, ['/', '?x=1', '%', '/../b2b', '%00'])}` : TOKEN_PATH;
        const b = method === 'GET' ? undefined : body(r);
        try {
          const res = await pool.request({ method: method as 'POST', path, headers, body: b });
          const text = await res.body.text();
          seen.set(res.statusCode, (seen.get(res.statusCode) ?? 0) + 1);
          let json: { responseCode?: unknown; responseMessage?: unknown } | undefined;
          try {
            json = JSON.parse(text);
          } catch {
            json = undefined;
          }
          const ok =
            res.statusCode < 500 &&
            json !== undefined &&
            typeof json.responseCode === 'string' &&
            /^\d{7}$/.test(json.responseCode) &&
            json.responseCode.startsWith(String(res.statusCode)) &&
            typeof json.responseMessage === 'string' &&
            !text.includes('stack');
          if (!ok) failures.push(`case ${i}: ${method} ${path} → ${res.statusCode} ${text.slice(0, 200)}`);
        } catch (e) {
          // The client may refuse to send a header it deems invalid; that is not the server's doing.
          if ((e as { code?: string }).code !== 'UND_ERR_INVALID_ARG') failures.push(`case ${i}: ${String(e)}`);
        }
      }
    };
    await Promise.all(Array.from({ length: 16 }, worker));
    await pool.close();
    assert.deepEqual(failures.slice(0, 10), []);
    assert.ok(
      (seen.get(400) ?? 0) > N / 10 && (seen.get(401) ?? 0) > N / 100 && (seen.get(200) ?? 0) > 0,
      `status spread ${JSON.stringify([...seen])}`,
    );
  });

  function rawExchange(payload: string | Buffer): Promise<string> {
    return new Promise((resolve, reject) => {
      const url = new URL(gw.url);
      const socket = connect(Number(url.port), url.hostname);
      const chunks: Buffer[] = [];
      const timer = setTimeout(() => {
        socket.destroy();
        reject(new Error('connection hung'));
      }, 5000);
      socket.on('data', (c) => chunks.push(c));
      socket.on('error', () => undefined);
      socket.on('close', () => {
        clearTimeout(timer);
        resolve(Buffer.concat(chunks).toString('latin1'));
      });
      socket.end(payload);
    });
  }

  for (const [name, payload] of [
    ['a header line without a colon', `POST ${TOKEN_PATH} HTTP/1.1\r\nHost: x\r\nbroken header\r\n\r\n`],
    ['a non-numeric Content-Length', `POST ${TOKEN_PATH} HTTP/1.1\r\nHost: x\r\nContent-Length: abc\r\n\r\n{}`],
    [
      'broken chunked framing',
      `POST ${TOKEN_PATH} HTTP/1.1\r\nHost: x\r\nTransfer-Encoding: chunked\r\n\r\nzz\r\n{}\r\n0\r\n\r\n`,
    ],
    ['headers over the size limit', `POST ${TOKEN_PATH} HTTP/1.1\r\nHost: x\r\nX-Pad: ${'a'.repeat(20_000)}\r\n\r\n`],
    [
      'a body shorter than its Content-Length, then close',
      `POST ${TOKEN_PATH} HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\nContent-Length: 100\r\n\r\n{"grantType"`,
    ],
  ] as const) {
    it(`answers ${name} without a 5xx or a hung connection`, async () => {
      const res = await rawExchange(payload);
      if (res.length === 0) return; // the peer closed first: nothing to answer, nothing hung
      const status = Number(/^HTTP\/1\.1 (\d{3})/.exec(res)?.[1]);
      assert.ok(status >= 400 && status < 500, res.slice(0, 200));
      const json = JSON.parse(res.slice(res.indexOf('\r\n\r\n') + 4));
      assert.ok(String(json.responseCode).startsWith(String(status)));
    });
  }
});

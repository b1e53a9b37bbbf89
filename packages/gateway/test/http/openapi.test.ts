import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { BASIC } from '@hyperjump/json-schema/experimental';
import '@hyperjump/json-schema/formats';
import { registerSchema, setShouldValidateFormat, validate } from '@hyperjump/json-schema/openapi-3-1';
import { Validator } from '@seriousme/openapi-schema-validator';
import { callbackHmacStringToSign, formatJakartaTimestamp, hmacSha512Base64, mediaType } from '@snapgate/snap';
import type { FastifyInstance } from 'fastify';
import { loadConfig } from '../../src/config.ts';
import { CANONICAL_SNAP_PREFIX, profileRoutes } from '../../src/snap-mounts.ts';
import { ADMIN_TOKEN, startGateway, type TestGateway } from '../helpers/gateway.ts';
import { type Received, type Receiver, startReceiver, waitFor } from '../helpers/receiver.ts';
import { routesOf } from '../helpers/routes.ts';
import {
  newExternalId,
  postCustomerToken,
  postToken,
  type SnapCaller,
  type SnapCallOptions,
  send,
  snapCall,
} from '../helpers/snap.ts';
import { approvedAuthCode } from '../helpers/wallet.ts';

// Both OpenAPI documents, proven against a real gateway over HTTP:
// - each document is valid OpenAPI 3.1 (two maintained validators: @seriousme/openapi-schema-validator
//   and @hyperjump/json-schema's OpenAPI 3.1 schema-base), and every example in it fits its schema;
// - every route the app serves is in a document, and every documented operation is a route;
// - every documented operation is called, and answers a success and an error; every real answer's
//   status and content type are documented and its body is valid against the documented schema
//   (@hyperjump/json-schema, OpenAPI 3.1 dialect);
// - every request this test sends and the gateway accepts is valid against the documented request
//   schema, and bodies and headers the documents refuse (derived from the schemas) are refused (400).

const SNAP_DOC = '/openapi/snap.json';
const ADMIN_DOC = '/openapi/admin.json';
/** Routes that describe the APIs and are in neither document. */
const SELF = new Set([`GET ${SNAP_DOC}`, `GET ${ADMIN_DOC}`, 'GET /docs']);
/** Operations with no error answer at all (nothing a caller sends can make them fail). */
const NEVER_FAILS = new Set([
  'admin GET /healthz',
  'admin GET /metrics',
  'snap GET /.well-known/snapgate/callback-public-key.pem',
]);
const METHODS = ['get', 'put', 'post', 'delete', 'patch'] as const;
const API = '/api/snap/v1.0';
const ACCOUNT_INQUIRY = `${API}/account-inquiry-external`;
const TRANSFER_INTERBANK = `${API}/transfer-interbank`;
const TRANSFER_STATUS = `${API}/transfer/status`;
const idr = (value: string) => ({ value, currency: 'IDR' });

setShouldValidateFormat(true);

type Json = any;
interface Answer {
  status: number;
  headers: Headers;
  text: string;
}

const pointerOf = (segments: Array<string | number>) =>
  segments.map((s) => `/${encodeURIComponent(String(s).replaceAll('~', '~0').replaceAll('/', '~1'))}`).join('');

/** A served document, registered with the validator under the URL it was served at. */
class ApiDocument {
  readonly seen = new Map<string, Set<number>>();
  private readonly validators = new Map<string, ReturnType<typeof validate>>();
  constructor(
    readonly name: 'snap' | 'admin',
    readonly uri: string,
    readonly doc: Json,
  ) {
    registerSchema(doc, uri, 'https://spec.openapis.org/oas/3.1/schema-base');
  }

  /** Errors of a value against the schema at a JSON pointer of this document (none: valid). */
  async errorsAt(segments: Array<string | number>, value: unknown): Promise<string[]> {
    const uri = `${this.uri}#${pointerOf(segments)}`;
    let compiled = this.validators.get(uri);
    if (!compiled) {
      compiled = validate(uri);
      this.validators.set(uri, compiled);
    }
    const out = (await compiled)(value as never, BASIC);
    if (out.valid) return [];
    return (out.errors ?? []).map((e) => `${e.instanceLocation} fails ${e.absoluteKeywordLocation.split('#')[1]}`);
  }

  operation(method: string, template: string): Json {
    return this.doc.paths[template]?.[method.toLowerCase()];
  }

  /** Every operation, as `METHOD template`. */
  operations(): string[] {
    return Object.entries(this.doc.paths as Record<string, Json>).flatMap(([path, item]) =>
      METHODS.filter((m) => item[m]).map((m) => `${m.toUpperCase()} ${path}`),
    );
  }

  resolve(schema: Json): Json {
    if (typeof schema?.$ref !== 'string') return schema;
    const [, kind, name] = /^#\/components\/(\w+)\/(.+)$/.exec(schema.$ref) ?? [];
    const target = this.doc.components[kind as string][name as string];
    const { $ref: _ref, ...siblings } = schema;
    return { ...this.resolve(target), ...siblings };
  }

  parameters(op: Json): Json[] {
    return (op.parameters ?? []).map((p: Json) => this.resolve(p));
  }

  /** Checks a real answer against the document: status, content type, body, headers. */
  async check(method: string, template: string, answer: Answer): Promise<void> {
    const op = this.operation(method, template);
    const what = `${this.name} ${method} ${template} → ${answer.status}`;
    assert.ok(op, `${this.name}: ${method} ${template} is not documented`);
    const response = op.responses[String(answer.status)];
    assert.ok(
      response,
      `${what} is not documented (documented: ${Object.keys(op.responses).join(', ')}): ${answer.text.slice(0, 300)}`,
    );
    const where = ['paths', template, method.toLowerCase(), 'responses', String(answer.status)];
    if (response.content) {
      const ct = answer.headers.get('content-type');
      const media = ct ? mediaType(ct) : '';
      assert.ok(response.content[media], `${what}: content type ${ct} is not documented`);
      const value = media.endsWith('json') ? JSON.parse(answer.text) : answer.text;
      const errors = await this.errorsAt([...where, 'content', media, 'schema'], value);
      assert.deepEqual(
        errors,
        [],
        `${what}: the body does not fit the documented schema: ${answer.text.slice(0, 600)}`,
      );
    } else {
      assert.equal(answer.text, '', `${what}: a body no schema documents`);
    }
    for (const [name, header] of Object.entries((response.headers ?? {}) as Record<string, Json>)) {
      const value = answer.headers.get(name);
      if (value === null) {
        assert.ok(!header.required, `${what}: documented header ${name} is missing`);
        continue;
      }
      assert.deepEqual(
        await this.errorsAt([...where, 'headers', name, 'schema'], value),
        [],
        `${what}: header ${name}`,
      );
    }
    const key = `${method.toUpperCase()} ${template}`;
    this.seen.set(key, (this.seen.get(key) ?? new Set()).add(answer.status));
  }

  /** Errors of a request body against the operation's documented request schema. */
  requestErrors(method: string, template: string, body: unknown): Promise<string[]> {
    return this.errorsAt(
      ['paths', template, method.toLowerCase(), 'requestBody', 'content', 'application/json', 'schema'],
      body,
    );
  }
}

/** Every media object with examples, and every schema with an `example`, in a document. */
function* examplesOf(
  doc: Json,
  at: Array<string | number> = [],
): Generator<{ at: Array<string | number>; value: unknown }> {
  if (typeof doc !== 'object' || doc === null) return;
  if (doc.schema && doc.examples) {
    for (const e of Object.values(doc.examples as Record<string, Json>)) {
      yield { at: [...at, 'schema'], value: e.value };
    }
  }
  if (at[at.length - 2] === 'schemas' && 'example' in doc) yield { at, value: doc.example };
  if (doc.schema && 'example' in doc && doc.in) yield { at: [...at, 'schema'], value: doc.example };
  for (const [k, v] of Object.entries(doc)) {
    if (k === 'examples' || k === 'example') continue;
    yield* examplesOf(v, [...at, k]);
  }
}

interface Mutation {
  what: string;
  body: Json;
}

/** Bodies the schema refuses, derived from it: a required member dropped, a member of the wrong type, too long, outside its enum or pattern. */
function* mutationsOf(api: ApiDocument, schema: Json, body: Json, path: string[] = []): Generator<Mutation> {
  const s = api.resolve(schema);
  if (typeof body !== 'object' || body === null) return;
  const at = (k: string) => [...path, k].join('.');
  const withValue = (k: string, v: unknown) => {
    const copy = structuredClone(body);
    if (v === undefined) delete copy[k];
    else copy[k] = v;
    return copy;
  };
  for (const k of (s.required ?? []) as string[])
    if (k in body) yield { what: `without ${at(k)}`, body: withValue(k, undefined) };
  for (const [k, raw] of Object.entries((s.properties ?? {}) as Record<string, Json>)) {
    if (!(k in body)) continue;
    const p = api.resolve(raw);
    if (p.type === 'string' || typeof body[k] === 'string') {
      yield { what: `${at(k)} a number`, body: withValue(k, 12345) };
      if (p.maxLength !== undefined)
        yield { what: `${at(k)} too long`, body: withValue(k, 'x'.repeat(p.maxLength + 1)) };
      if (p.enum) yield { what: `${at(k)} outside its enum`, body: withValue(k, 'ZZ') };
      if (p.pattern) yield { what: `${at(k)} off its pattern`, body: withValue(k, '!') };
    }
    if (p.type === 'object') yield { what: `${at(k)} not an object`, body: withValue(k, 'x') };
    if (p.properties && typeof body[k] === 'object') {
      for (const m of mutationsOf(api, p, body[k], [...path, k])) yield { what: m.what, body: withValue(k, m.body) };
    }
  }
}

describe('OpenAPI documents (GET /openapi/snap.json, /openapi/admin.json, /docs)', { timeout: 120_000 }, () => {
  let gw: TestGateway;
  let receiver: Receiver;
  let snapApi: ApiDocument;
  let adminApi: ApiDocument;

  before(async () => {
    receiver = await startReceiver();
    gw = await startGateway({
      env: {
        SNAPGATE_RATE_LIMIT: 'off',
        SNAPGATE_QR_RATE_LIMIT: '8',
        SNAPGATE_RETRY_SCHEDULE: '0s,100ms,100ms',
        // Every admin operation is called with a wrong key below: each must answer 401, not 429.
        SNAPGATE_AUTH_FAILURE_LIMIT: '10000',
        // Every payout through the bank waits for a second key: approve and reject are called below.
        SNAPGATE_PAYOUT_APPROVAL_ABOVE: '0',
      },
      dispatch: true,
    });
    const load = async (path: string) => {
      const res = await fetch(`${gw.url}${path}`);
      assert.equal(res.status, 200);
      assert.equal(mediaType(res.headers.get('content-type') ?? ''), 'application/json');
      return res.json();
    };
    snapApi = new ApiDocument('snap', `${gw.url}${SNAP_DOC}`, await load(SNAP_DOC));
    adminApi = new ApiDocument('admin', `${gw.url}${ADMIN_DOC}`, await load(ADMIN_DOC));
  });
  after(async () => {
    await gw.close();
    await receiver.close();
  });

  // --- calling the gateway, every answer checked against its document ---

  const text = async (res: Response): Promise<Answer> => ({
    status: res.status,
    headers: res.headers,
    text: await res.text(),
  });

  /** An admin call by path template; the answer is checked against the admin document. */
  async function admin(
    method: string,
    template: string,
    o: {
      params?: Record<string, string>;
      query?: string;
      body?: unknown;
      raw?: string;
      token?: string | null;
      contentType?: string;
    } = {},
  ) {
    const path = template.replace(/\{(\w+)\}/g, (_, k: string) => encodeURIComponent(o.params?.[k] ?? 'x'));
    const raw = o.raw ?? (o.body === undefined ? undefined : JSON.stringify(o.body));
    const headers: Record<string, string> = {};
    if (o.token !== null) headers.authorization = `Bearer ${o.token ?? ADMIN_TOKEN}`;
    if (raw !== undefined) headers['content-type'] = o.contentType ?? 'application/json';
    const answer = await send(gw.url, method, `${path}${o.query ? `?${o.query}` : ''}`, headers, raw);
    await adminApi.check(method, template, answer);
    if (answer.status < 300 && o.body !== undefined) {
      assert.deepEqual(
        await adminApi.requestErrors(method, template, o.body),
        [],
        `${method} ${template}: accepted body`,
      );
    }
    return { status: answer.status, body: answer.body as Json, text: answer.text };
  }

  /** A signed SNAP call; the answer is checked against the SNAP document, an accepted body against its request schema. */
  async function snap(template: string, caller: SnapCaller, body: unknown, o: SnapCallOptions = {}) {
    const method =
      o.method ?? (snapApi.doc.paths[template]?.post ? 'POST' : Object.keys(snapApi.doc.paths[template] ?? {})[0]);
    const answer = await snapCall(gw.url, caller, template, body, { ...o, method: String(method).toUpperCase() });
    await snapApi.check(String(method), template, answer);
    if (answer.status === 200 && typeof body === 'object') {
      assert.deepEqual(await snapApi.requestErrors(String(method), template, body), [], `${template}: accepted body`);
    }
    return answer as { status: number; body: Json; text: string; headers: Headers };
  }

  const TOKEN = `${API}/access-token/b2b`;
  async function token(o: Parameters<typeof postToken>[1]) {
    const answer = await postToken(gw.url, o);
    await snapApi.check('POST', TOKEN, answer);
    return answer;
  }

  const WEBHOOK = '/upstream/{providerId}/webhook/payment-qr-notification';
  /** Another snapgate's callback, signed HMAC-SHA512 with the outbound secret held at it. */
  async function upstream(
    providerId: string,
    body: unknown,
    o: { secret?: string; headers?: Record<string, string | undefined> } = {},
  ) {
    const path = `/upstream/${providerId}/webhook/payment-qr-notification`;
    const raw = JSON.stringify(body);
    const timestamp = formatJakartaTimestamp(Date.now());
    const headers: Record<string, string | undefined> = {
      'content-type': 'application/json',
      'x-timestamp': timestamp,
      'x-partner-id': 'UPSTREAM-P',
      'x-external-id': newExternalId(),
      'x-signature': hmacSha512Base64(
        o.secret ?? 'upstream-outbound-secret',
        callbackHmacStringToSign({ path, partnerId: 'UPSTREAM-P', rawBody: raw, timestamp }),
      ),
      ...o.headers,
    };
    const clean: Record<string, string> = {};
    for (const [k, v] of Object.entries(headers)) if (v !== undefined) clean[k] = v;
    const answer = await send(gw.url, 'POST', path, clean, raw);
    await snapApi.check('POST', WEBHOOK, answer);
    return answer;
  }

  /** A callback the merchant received, checked against the document's webhook. */
  async function checkCallback(name: string, r: Received) {
    const op = snapApi.doc.webhooks[name].post;
    const errors = await snapApi.errorsAt(
      ['webhooks', name, 'post', 'requestBody', 'content', 'application/json', 'schema'],
      JSON.parse(r.body),
    );
    assert.deepEqual(errors, [], `${name}: ${r.body}`);
    assert.equal(mediaType(String(r.headers['content-type'])), 'application/json');
    assert.ok(r.headers['x-signature'], 'signed');
    for (const p of snapApi.parameters(op)) {
      const value = r.headers[p.name.toLowerCase()];
      if (value === undefined) {
        assert.ok(!p.required, `${name}: header ${p.name} is missing`);
        continue;
      }
      assert.equal(typeof value, 'string');
      assert.ok(
        (await snapApi.errorsAt(['components', 'parameters', refNameOf(op, p.name), 'schema'], value)).length === 0,
        `${name}: header ${p.name} ${value}`,
      );
    }
    const key = `WEBHOOK ${name}`;
    snapApi.seen.set(key, (snapApi.seen.get(key) ?? new Set()).add(200));
  }
  const refNameOf = (op: Json, header: string) => {
    const found = (op.parameters as Json[]).find((p) => snapApi.resolve(p).name === header);
    return String(found.$ref).split('/').pop() as string;
  };

  // --- shared state of the scenario ---
  let merchant: Json;
  let m: SnapCaller;
  let bank: SnapCaller & { id: string };
  let acquirer: SnapCaller & { id: string };
  const refs: Record<string, Json> = {};
  let seq = 0;
  const next = (prefix: string) => `${prefix}-${Date.now()}-${++seq}`;

  it('serves two valid OpenAPI 3.1 documents whose examples fit their schemas', async () => {
    for (const api of [snapApi, adminApi]) {
      assert.equal(api.doc.openapi, '3.1.1');
      const seriousme = new Validator();
      const r = await seriousme.validate(structuredClone(api.doc));
      assert.deepEqual(r, { valid: true }, `${api.name}: ${JSON.stringify(r.errors)}`);
      const base = await validate('https://spec.openapis.org/oas/3.1/schema-base', api.doc, BASIC);
      assert.equal(base.valid, true, `${api.name}: ${JSON.stringify(base.valid ? [] : base.errors?.slice(0, 10))}`);
      let n = 0;
      for (const e of examplesOf(api.doc)) {
        n++;
        assert.deepEqual(await api.errorsAt(e.at, e.value), [], `${api.name} example at ${e.at.join('/')}`);
      }
      assert.ok(n > 20, `${api.name}: ${n} examples`);
    }
    // Webhooks: the SNAP document's callbacks to merchants.
    assert.deepEqual(Object.keys(snapApi.doc.webhooks).sort(), [
      'debit-notify',
      'payment-qr-notification',
      'payment-va-notification',
    ]);
  });

  it('lists every route the gateway serves, and nothing it does not serve (sandbox and production)', async () => {
    const check = (app: FastifyInstance, docs: ApiDocument[] | Json[]) => {
      const routed = routesOf(app);
      for (const self of SELF) assert.ok(routed.delete(self), `${self} is served`);
      // The web console, the merchant users' sign-in, the hosted checkout, payment links' pages and
      // the sandbox wallet's consent page are pages for people, not an API (docs/console.md,
      // docs/merchant-users.md, docs/checkout.md, docs/payment-links.md, docs/ewallets.md#account-binding);
      // the checkout's QR image is documented (`qrUrl`).
      const pages = [...routed].filter(
        (r) => / \/(console|pay|bind|merchant|l)(\/|$)/.test(r) && !r.endsWith('/qr.{format}'),
      );
      assert.ok(pages.length > 5, 'the console is served');
      for (const p of pages) routed.delete(p);
      // The sandbox bank (sandbox mode) is a bank's API the gateway calls itself, not snapgate's
      // (docs/payouts.md).
      for (const r of [...routed].filter((r) => / \/sandbox-bank\//.test(r))) routed.delete(r);
      const documented = new Set<string>();
      for (const d of docs) {
        for (const [path, item] of Object.entries(d.paths as Record<string, Json>)) {
          for (const method of METHODS) if (item[method]) documented.add(`${method.toUpperCase()} ${path}`);
        }
      }
      // The SNAP routes under the other prefixes and the profiles' routes are documented in the SNAP
      // document's description, each as the documented route it serves (test/http/snap-mounts.test.ts).
      const mounts = loadConfig({}).snapMounts;
      const profiled = new Set(mounts.profiles.flatMap((p) => profileRoutes(p).map((r) => `${r.method} ${r.url}`)));
      const isAlias = (r: string) => {
        const [method, path] = r.split(' ') as [string, string];
        if (profiled.has(r)) return true;
        const prefix = mounts.prefixes.find((p) => path.startsWith(`${p}/`));
        const canonical = prefix && `${CANONICAL_SNAP_PREFIX}${path.slice(prefix.length)}`;
        const served = (m: string, p: string) => documented.has(`${m} ${p}`);
        if (canonical && served(method, canonical)) return true;
        // midtrans: delete-va by POST, under every prefix.
        const rest = prefix ? path.slice(prefix.length) : path.slice(CANONICAL_SNAP_PREFIX.length);
        return (
          method === 'POST' && rest === '/transfer-va/delete-va' && served('DELETE', `${CANONICAL_SNAP_PREFIX}${rest}`)
        );
      };
      assert.deepEqual(
        [...routed].filter((r) => !documented.has(r) && !isAlias(r)).sort(),
        [],
        'served but documented nowhere',
      );
      assert.deepEqual([...documented].filter((r) => !routed.has(r)).sort(), [], 'documented but not served');
      // The two documents do not overlap.
      const snapPaths = Object.keys(docs[0].paths);
      assert.deepEqual(
        snapPaths.filter((p) => p in docs[1].paths),
        [],
      );
    };
    check(gw.gateway.app, [snapApi.doc, adminApi.doc]);
    assert.ok(adminApi.operations().some((o) => o.includes('/sandbox/')));

    const prod = await startGateway({ env: { SNAPGATE_MODE: 'production' } });
    try {
      const load = async (p: string) => (await fetch(`${prod.url}${p}`)).json();
      const [s, a] = [await load(SNAP_DOC), await load(ADMIN_DOC)];
      check(prod.gateway.app, [s, a]);
      assert.equal(Object.keys(a.paths).filter((p) => p.includes('/sandbox/')).length, 0);
      // In production /metrics takes an admin key.
      const prodAdmin = new ApiDocument('admin', `${prod.url}${ADMIN_DOC}`, a);
      assert.deepEqual(a.paths['/metrics'].get.security, [{ adminKey: ['read'] }]);
      await prodAdmin.check('GET', '/metrics', await text(await fetch(`${prod.url}/metrics`)));
      const metrics = await fetch(`${prod.url}/metrics`, { headers: { authorization: `Bearer ${ADMIN_TOKEN}` } });
      await prodAdmin.check('GET', '/metrics', await text(metrics));
      assert.deepEqual([...(prodAdmin.seen.get('GET /metrics') ?? [])].sort(), [200, 401]);
      assert.equal(
        (a.tags as Json[]).some((t) => t.name === 'Sandbox'),
        false,
      );
    } finally {
      await prod.close();
    }
  });

  it('renders both documents as one self-contained page at /docs', async () => {
    const res = await fetch(`${gw.url}/docs`);
    assert.equal(res.status, 200);
    assert.equal(mediaType(res.headers.get('content-type') ?? ''), 'text/html');
    assert.match(res.headers.get('content-security-policy') ?? '', /default-src 'none'/);
    const html = await res.text();
    // One page for both documents: about 4.5 KB per operation, some 160 operations.
    assert.ok(html.length < 780_000, `${html.length} bytes`);
    assert.doesNotMatch(html, /<script|<link|<img|<iframe|@import|url\(/i, 'no script, no external asset');
    for (const href of html.matchAll(/href="([^"]+)"/g)) {
      assert.match(href[1] as string, /^(#|\/openapi\/(snap|admin)\.json$)/, `link ${href[1]}`);
    }
    assert.match(html, /href="\/openapi\/snap\.json"/);
    assert.match(html, /href="\/openapi\/admin\.json"/);
    const decode = (s: string) =>
      s.replaceAll('&amp;', '&').replaceAll('&#39;', "'").replaceAll('&quot;', '"').replaceAll('&#96;', '`');
    const plain = decode(html);
    for (const api of [snapApi, adminApi]) {
      for (const tag of api.doc.tags as Json[]) assert.ok(plain.includes(`>${tag.name}</h2>`), `tag ${tag.name}`);
      const items = [
        ...Object.entries(api.doc.paths as Record<string, Json>),
        ...Object.entries((api.doc.webhooks ?? {}) as Record<string, Json>).map(
          ([n, i]) => [`webhook ${n}`, i] as const,
        ),
      ];
      for (const [path, item] of items) {
        for (const method of METHODS) {
          const op = item[method];
          if (!op) continue;
          const section = new RegExp(
            `<section class="op" id="${api.name}-${op.operationId.toLowerCase()}">(.*?)</section>`,
            's',
          ).exec(html)?.[1];
          assert.ok(section, `${api.name} ${method} ${path} has a section`);
          const s = decode(section);
          assert.ok(s.includes(`>${method.toUpperCase()}</span>`), `${path}: method`);
          assert.ok(s.includes(`>${path}</code>`), `${path}: path`);
          assert.ok(s.includes(op.summary), `${path}: summary`);
          for (const p of api.parameters(op))
            assert.ok(s.includes(`<code>${p.name}</code>`), `${path}: parameter ${p.name}`);
          if (op.requestBody) assert.ok(s.includes('<h4>Request body'), `${path}: request body`);
          for (const status of Object.keys(op.responses)) {
            assert.ok(s.includes(`>${status}</div>`), `${path}: response ${status}`);
          }
        }
      }
    }
  });

  it('SNAP: tokens, QRIS, Virtual Accounts, banks and acquirers answer as documented', async () => {
    // Merchant and providers through the admin API (checked too).
    merchant = (
      await admin('POST', '/admin/v1/merchants', {
        body: {
          name: 'OpenAPI Merchant',
          callbackBaseUrl: receiver.baseUrl,
          merchantName: 'WARUNG OPENAPI',
          merchantCity: 'BANDUNG',
        },
      })
    ).body;
    assert.ok(merchant.clientSecret);
    const b = await admin('POST', '/admin/v1/providers', {
      body: { name: 'Bank OpenAPI', kind: 'bank', bankCode: '014' },
    });
    assert.equal(b.status, 201);
    const a = await admin('POST', '/admin/v1/providers', {
      body: {
        name: 'Acquirer OpenAPI',
        kind: 'acquirer',
        bankCode: '936',
        outbound: {
          baseUrl: 'https://acquirer.example',
          clientKey: 'k',
          clientSecret: 'upstream-outbound-secret',
          partnerId: 'UPSTREAM-P',
        },
      },
    });
    assert.equal(a.status, 201);

    // Access token: success, bad signature (401), missing header (400), not JSON (400).
    const t = await token({ clientKey: merchant.clientKey, clientSecret: merchant.clientSecret });
    assert.equal(t.status, 200, t.text);
    assert.deepEqual(await snapApi.requestErrors('POST', TOKEN, JSON.parse('{"grantType":"client_credentials"}')), []);
    assert.equal((await token({ clientKey: merchant.clientKey, clientSecret: 'wrong' })).status, 401);
    assert.equal(
      (
        await token({
          clientKey: merchant.clientKey,
          clientSecret: merchant.clientSecret,
          headers: { 'x-timestamp': undefined },
        })
      ).status,
      400,
    );
    assert.equal(
      (await token({ clientKey: merchant.clientKey, clientSecret: merchant.clientSecret, body: 'nope' })).status,
      400,
    );
    m = {
      clientKey: merchant.clientKey,
      clientSecret: merchant.clientSecret,
      partnerId: merchant.partnerId,
      accessToken: t.body.accessToken,
    };
    const provider = async (p: Json) => {
      const r = await token({ clientKey: p.clientKey, clientSecret: p.clientSecret });
      assert.equal(r.status, 200, r.text);
      return {
        id: p.id,
        clientKey: p.clientKey,
        clientSecret: p.clientSecret,
        partnerId: p.clientKey,
        accessToken: r.body.accessToken,
      };
    };
    bank = await provider(b.body);
    acquirer = await provider(a.body);

    // QRIS.
    const GENERATE = `${API}/qr/qr-mpm-generate`;
    const QUERY = `${API}/qr/qr-mpm-query`;
    const CANCEL = `${API}/qr/qr-mpm-cancel`;
    const REFUND = `${API}/qr/qr-mpm-refund`;
    const generate = async (label: string, value = '25000.00') => {
      const r = await snap(GENERATE, m, {
        partnerReferenceNo: next(label),
        amount: idr(value),
        merchantId: 'M-1',
        terminalId: 'T01',
        storeId: 'S01',
        validityPeriod: formatJakartaTimestamp(Date.now() + 3600_000),
        additionalInfo: { note: 'openapi' },
      });
      assert.equal(r.status, 200, r.text);
      return r.body;
    };
    const paid = await generate('PAID');
    refs.paid = paid;
    assert.equal(
      (await snap(GENERATE, m, { partnerReferenceNo: paid.partnerReferenceNo, amount: idr('1.00') })).status,
      409,
    );
    assert.equal((await snap(GENERATE, m, 'not json')).status, 400);
    assert.equal(
      (
        await snap(
          GENERATE,
          m,
          { partnerReferenceNo: next('X'), amount: idr('1.00') },
          { headers: { authorization: undefined } },
        )
      ).status,
      401,
    );
    assert.equal(
      (await snap(GENERATE, m, { partnerReferenceNo: next('X'), amount: idr('1.00') }, { secret: 'wrong' })).status,
      401,
    );

    const q = await snap(QUERY, m, { originalReferenceNo: paid.referenceNo, serviceCode: '47' });
    assert.deepEqual([q.status, q.body.latestTransactionStatus, q.body.additionalInfo], [200, '01', {}]);
    assert.equal((await snap(QUERY, m, { originalReferenceNo: '000000000000000000', serviceCode: '47' })).status, 404);
    const externalId = newExternalId();
    assert.equal(
      (await snap(QUERY, m, { originalPartnerReferenceNo: paid.partnerReferenceNo, serviceCode: '47' }, { externalId }))
        .status,
      200,
    );
    assert.equal(
      (await snap(QUERY, m, { originalReferenceNo: paid.referenceNo, serviceCode: '47' }, { externalId })).status,
      409,
    );

    // Paid through the sandbox acquirer (the admin sandbox route), then queried and refunded.
    assert.equal(
      (
        await admin('POST', '/admin/v1/sandbox/qris/{referenceNo}/pay', {
          params: { referenceNo: paid.referenceNo },
          body: { status: '00', payerName: 'ANI' },
        })
      ).status,
      200,
    );
    const q2 = await snap(QUERY, m, { originalReferenceNo: paid.referenceNo, serviceCode: '47' });
    assert.deepEqual([q2.body.latestTransactionStatus, typeof q2.body.paidTime], ['00', 'string']);
    const refund = (value: string, partnerRefundNo = next('RF')) =>
      snap(REFUND, m, {
        originalPartnerReferenceNo: paid.partnerReferenceNo,
        originalReferenceNo: paid.referenceNo,
        partnerRefundNo,
        refundAmount: idr(value),
        reason: 'partly',
      });
    assert.equal((await refund('5000.00')).status, 200);
    assert.equal((await refund('30000.00')).status, 404);

    const open = await generate('OPEN');
    refs.open = open;
    assert.equal(
      (
        await snap(REFUND, m, {
          originalPartnerReferenceNo: open.partnerReferenceNo,
          partnerRefundNo: next('RF'),
          refundAmount: idr('1.00'),
        })
      ).status,
      405,
    );
    const canceled = await generate('CANCELED');
    refs.canceled = canceled;
    assert.equal(
      (await snap(CANCEL, m, { originalReferenceNo: canceled.referenceNo, reason: 'customer left' })).status,
      200,
    );
    assert.equal((await snap(CANCEL, m, { originalReferenceNo: canceled.referenceNo })).status, 405);
    assert.equal((await snap(CANCEL, m, { originalPartnerReferenceNo: 'nobody' })).status, 404);

    // E-wallet (Direct Debit): pay, status, cancel, refund; the sandbox wallet's notify and admin route.
    const DEBIT = `${API}/debit`;
    const debitOrder = (label: string, value = '25000.00', extra: Json = {}) => ({
      partnerReferenceNo: next(label),
      amount: idr(value),
      validUpTo: formatJakartaTimestamp(Date.now() + 3600_000),
      urlParams: [
        { url: 'https://shop.example/orders/1', type: 'PAY_RETURN', isDeeplink: 'N' },
        // Its callbacks at the receiver's default e-wallet path, given as its own URL.
        { url: `${receiver.baseUrl}/v1.0/debit/notify`, type: 'PAY_NOTIFY', isDeeplink: 'N' },
      ],
      payOptionDetails: [{ payMethod: 'EMONEY', payOption: 'SANDBOXPAY', transAmount: idr(value) }],
      additionalInfo: { note: 'openapi' },
      ...extra,
    });
    const wallet = (await snap(`${DEBIT}/payment-host-to-host`, m, debitOrder('EW'))).body;
    assert.equal(wallet.responseCode, '2005400');
    assert.equal(
      (await snap(`${DEBIT}/payment-host-to-host`, m, debitOrder('EW', '1.00', { payOptionDetails: [] }))).status,
      400,
    );
    assert.equal(
      (await snap(`${DEBIT}/status`, m, { originalReferenceNo: wallet.referenceNo, serviceCode: '54' })).status,
      200,
    );
    assert.equal(
      (await snap(`${DEBIT}/status`, m, { originalReferenceNo: '000000000000000000', serviceCode: '54' })).status,
      404,
    );
    const walletProvider = await gw.store.findProviderById(
      (await gw.store.getSetting('sandbox_wallet_provider_id')) as string,
    );
    assert.ok(walletProvider);
    const walletToken = await token({ clientKey: walletProvider.clientKey, clientSecret: walletProvider.clientSecret });
    const sandboxWallet = {
      clientKey: walletProvider.clientKey,
      clientSecret: walletProvider.clientSecret,
      partnerId: walletProvider.clientKey,
      accessToken: walletToken.body.accessToken,
    };
    const walletNotice = (referenceNo: string, value = '25000.00') => ({
      originalPartnerReferenceNo: referenceNo,
      originalReferenceNo: 'SBW-1',
      latestTransactionStatus: '00',
      amount: idr(value),
      additionalInfo: { payerName: 'ANI', payerRefId: '123456' },
    });
    assert.equal((await snap(`${DEBIT}/notify`, sandboxWallet, walletNotice(wallet.referenceNo))).status, 200);
    assert.equal((await snap(`${DEBIT}/notify`, sandboxWallet, walletNotice(wallet.referenceNo, '1.00'))).status, 400);
    const debitRefund = (value: string) =>
      snap(`${DEBIT}/refund`, m, {
        originalPartnerReferenceNo: wallet.partnerReferenceNo,
        originalReferenceNo: wallet.referenceNo,
        partnerRefundNo: next('RF'),
        refundAmount: idr(value),
        reason: 'partly',
      });
    assert.equal((await debitRefund('5000.00')).status, 200);
    assert.equal((await debitRefund('30000.00')).status, 404);
    assert.equal(
      (await snap(`${DEBIT}/cancel`, m, { originalPartnerReferenceNo: wallet.partnerReferenceNo })).status,
      405,
    );
    const unpaidWallet = (await snap(`${DEBIT}/payment-host-to-host`, m, debitOrder('EW'))).body;
    assert.equal(
      (
        await snap(`${DEBIT}/cancel`, m, {
          originalPartnerReferenceNo: unpaidWallet.partnerReferenceNo,
          originalReferenceNo: unpaidWallet.referenceNo,
          reason: 'customer left',
        })
      ).status,
      200,
    );
    const EWALLET_PAY = '/admin/v1/sandbox/ewallet/{referenceNo}/pay';
    const walletPaid = (await snap(`${DEBIT}/payment-host-to-host`, m, debitOrder('EW'))).body;
    assert.equal(
      (await admin('POST', EWALLET_PAY, { params: { referenceNo: walletPaid.referenceNo }, body: { status: '00' } }))
        .status,
      200,
    );
    assert.equal((await admin('POST', EWALLET_PAY, { params: { referenceNo: 'nope' }, body: {} })).status, 404);
    assert.equal(
      (await admin('POST', EWALLET_PAY, { params: { referenceNo: walletPaid.referenceNo }, body: { status: '99' } }))
        .status,
      400,
    );

    // Account binding (docs/ewallets.md#account-binding): bind, the consent page, the customer
    // token, a payment from the bound account, unbind; each refused once too.
    const BIND = `${API}/registration-account-binding`;
    const UNBIND = `${API}/registration-account-unbinding`;
    const B2B2C = `${API}/access-token/b2b2c`;
    const bindBody = {
      partnerReferenceNo: `BIND-${Date.now()}`,
      redirectUrl: 'https://shop.example/linked',
      additionalInfo: { payOption: 'SANDBOXPAY' },
    };
    const binding = await snap(BIND, m, bindBody);
    assert.equal(binding.status, 200, binding.text);
    assert.equal((await snap(BIND, m, { ...bindBody, additionalInfo: { payOption: 'GOPAY' } })).status, 403);
    const authCode = await approvedAuthCode(binding.body.redirectUrl);
    const customerToken = async (body: Json) => {
      const signed = { clientKey: m.clientKey, clientSecret: m.clientSecret, body: JSON.stringify(body) };
      const answer = await postCustomerToken(gw.url, signed);
      await snapApi.check('POST', B2B2C, answer);
      if (answer.status === 200) assert.deepEqual(await snapApi.requestErrors('POST', B2B2C, body), []);
      return answer;
    };
    const customer = await customerToken({ grantType: 'authorization_code', authCode });
    assert.equal(customer.status, 200, customer.text);
    assert.equal((await customerToken({ grantType: 'authorization_code', authCode })).status, 401);
    const asCustomer = { headers: { 'authorization-customer': `Bearer ${customer.body.accessToken}` } };
    const boundPay = await snap(`${DEBIT}/payment-host-to-host`, m, debitOrder('EWB'), asCustomer);
    assert.equal(boundPay.status, 200, boundPay.text);
    const wrongCustomer = { headers: { 'authorization-customer': 'Bearer nope' } };
    assert.equal((await snap(`${DEBIT}/payment-host-to-host`, m, debitOrder('EWB'), wrongCustomer)).status, 401);
    assert.equal((await snap(UNBIND, m, {}, wrongCustomer)).status, 401);
    assert.equal((await snap(UNBIND, m, { partnerReferenceNo: bindBody.partnerReferenceNo }, asCustomer)).status, 200);

    // The QR image (cached, conditional, rate limited per address) and the callback key (public).
    const qr = async (path: string, headers: Record<string, string> = {}) => {
      const res = await fetch(`${gw.url}${path}`, { headers });
      const bytes = Buffer.from(await res.arrayBuffer());
      const type = mediaType(res.headers.get('content-type') ?? '');
      if (type === 'image/png') assert.deepEqual([...bytes.subarray(1, 4)], [...Buffer.from('PNG')]);
      const body = type === 'image/png' ? bytes.toString('latin1') : bytes.toString('utf8');
      await snapApi.check('GET', '/pay/{id}/qr.{format}', {
        status: res.status,
        headers: res.headers,
        text: body,
      });
      return res;
    };
    const image = new URL(paid.qrUrl).pathname;
    assert.match(image, /^\/pay\/[A-Za-z0-9_-]{22}\/qr\.png$/);
    const png = await qr(image);
    assert.equal(png.status, 200);
    const svgPath = image.replace(/\.png$/, '.svg');
    assert.equal((await qr(svgPath)).status, 200);
    assert.equal((await qr(image, { 'if-none-match': png.headers.get('etag') ?? '' })).status, 304);
    assert.equal((await qr('/pay/AAAAAAAAAAAAAAAAAAAAAA/qr.png')).status, 404);
    let limited = 0;
    for (let i = 0; i < 30 && limited !== 429; i++) limited = (await qr(svgPath)).status;
    assert.equal(limited, 429);
    await snapApi.check(
      'GET',
      '/.well-known/snapgate/callback-public-key.pem',
      await text(await fetch(`${gw.url}/.well-known/snapgate/callback-public-key.pem`)),
    );

    // Virtual Accounts: one of bank 014 (the bank provider's), others of the sandbox bank (999).
    const CREATE = `${API}/transfer-va/create-va`;
    const createVa = async (bankCode?: string, extra: Json = {}) => {
      const r = await snap(CREATE, m, {
        virtualAccountName: 'Budi Santoso',
        trxId: next('INV'),
        virtualAccountTrxType: 'C',
        totalAmount: idr('150000.00'),
        virtualAccountEmail: 'budi@example.com',
        virtualAccountPhone: '+6281234567890',
        expiredDate: formatJakartaTimestamp(Date.now() + 86_400_000),
        additionalInfo: bankCode ? { bankCode } : { note: 'sandbox' },
        ...extra,
      });
      assert.equal(r.status, 200, r.text);
      return r.body.virtualAccountData;
    };
    const va = await createVa('014');
    refs.va = va;
    assert.equal(
      (await snap(CREATE, m, { virtualAccountName: 'Dup', trxId: va.trxId, totalAmount: idr('1.00') })).status,
      409,
    );
    const lookup = { virtualAccountNo: va.virtualAccountNo, trxId: va.trxId };
    const unknownVa = { virtualAccountNo: ' 0000000000000000000' };
    for (const path of ['inquiry-va', 'status']) {
      assert.equal((await snap(`${API}/transfer-va/${path}`, m, lookup)).status, 200);
      assert.equal((await snap(`${API}/transfer-va/${path}`, m, unknownVa)).status, 404);
    }
    const UPDATE = `${API}/transfer-va/update-va`;
    assert.equal(
      (
        await snap(UPDATE, m, {
          ...lookup,
          virtualAccountName: 'Budi S.',
          totalAmount: idr('150000.00'),
          expiredDate: formatJakartaTimestamp(Date.now() + 86_400_000),
        })
      ).status,
      200,
    );

    // The bank: inquiry, a payment of the wrong amount, the payment, a second one.
    const numbers = {
      partnerServiceId: va.partnerServiceId,
      customerNo: va.customerNo,
      virtualAccountNo: va.virtualAccountNo,
    };
    const INQUIRY = `${API}/transfer-va/inquiry`;
    const PAYMENT = `${API}/transfer-va/payment`;
    assert.equal(
      (await snap(INQUIRY, bank, { ...numbers, inquiryRequestId: next('INQ'), channelCode: 6011 })).status,
      200,
    );
    assert.equal(
      (await snap(INQUIRY, bank, { ...numbers, customerNo: '999999999999', inquiryRequestId: next('INQ') })).status,
      404,
    );
    assert.equal((await snap(INQUIRY, m, { ...numbers, inquiryRequestId: next('INQ') })).status, 401);
    const pay = (value: string) =>
      snap(PAYMENT, bank, {
        ...numbers,
        paymentRequestId: next('PAY'),
        paidAmount: idr(value),
        trxDateTime: formatJakartaTimestamp(Date.now()),
        referenceNo: next('BNK'),
        flagAdvise: 'N',
        additionalInfo: { payerName: 'BUDI' },
      });
    assert.equal((await pay('1.00')).status, 404);
    assert.equal((await pay('150000.00')).status, 200);
    assert.equal((await pay('150000.00')).status, 404);
    assert.equal((await snap(INQUIRY, bank, { ...numbers, inquiryRequestId: next('INQ') })).status, 404);
    assert.equal((await snap(UPDATE, m, { ...lookup, virtualAccountName: 'Too late' })).status, 405);
    const st = await snap(`${API}/transfer-va/status`, m, lookup);
    assert.equal(st.body.virtualAccountData.paymentFlagStatus, '00');

    const DELETE = `${API}/transfer-va/delete-va`;
    const gone = await createVa();
    assert.equal((await snap(DELETE, m, { virtualAccountNo: gone.virtualAccountNo, trxId: gone.trxId })).status, 200);
    assert.equal((await snap(DELETE, m, { virtualAccountNo: gone.virtualAccountNo })).status, 405);
    assert.equal((await snap(DELETE, m, unknownVa)).status, 404);

    // Transfer Credit (disbursements, docs/payouts.md): off until the merchant has a daily limit, then
    // funded from what the VA above paid, through the sandbox payout bank.
    const account = { beneficiaryBankCode: '014', beneficiaryAccountNo: '1234567890' };
    assert.equal((await snap(ACCOUNT_INQUIRY, m, account)).status, 403);
    const disbursing = await admin('PATCH', '/admin/v1/merchants/{id}', {
      params: { id: merchant.id },
      body: { limits: { disbursementDaily: '100000.00' }, fees: { disbursement: { fixed: '2500.00' } } },
    });
    assert.deepEqual([disbursing.status, disbursing.body.limits], [200, { disbursementDaily: '100000.00' }]);
    assert.equal((await snap(ACCOUNT_INQUIRY, m, account)).status, 200);
    assert.equal((await snap(ACCOUNT_INQUIRY, m, { ...account, beneficiaryAccountNo: '1234567000' })).status, 404);
    const disburse = (accountNo: string, value: string) =>
      snap(TRANSFER_INTERBANK, m, {
        partnerReferenceNo: next('DISB'),
        amount: idr(value),
        beneficiaryAccountName: 'CV Sumber Rejeki',
        ...account,
        beneficiaryAccountNo: accountNo,
        transactionDate: formatJakartaTimestamp(Date.now()),
        remark: 'supplier',
        additionalInfo: { invoice: 'INV-9' },
      });
    const sent = await disburse('1234567890', '1000.00');
    assert.equal(sent.status, 200, sent.text);
    assert.equal((await disburse('1234567111', '1000.00')).status, 202);
    assert.equal((await disburse('1234567000', '1000.00')).status, 404);
    assert.equal((await disburse('1234567890', '100000.00')).status, 403);
    const asked = await snap(TRANSFER_STATUS, m, {
      originalPartnerReferenceNo: sent.body.partnerReferenceNo,
      originalReferenceNo: sent.body.referenceNo,
      serviceCode: '18',
    });
    assert.deepEqual([asked.status, asked.body.latestTransactionStatus], [200, '00']);
    assert.equal(
      (await snap(TRANSFER_STATUS, m, { originalPartnerReferenceNo: 'NONE', serviceCode: '18' })).status,
      404,
    );

    // The acquirer: a notification, one for nothing, one of the wrong amount.
    const NOTIFY = `${API}/qr/qr-mpm-notify`;
    const notified = await generate('NOTIFIED');
    const notice = (referenceNo: string, value = '25000.00') => ({
      originalPartnerReferenceNo: referenceNo,
      originalReferenceNo: 'ACQ-1',
      latestTransactionStatus: '00',
      transactionStatusDesc: 'Success',
      amount: idr(value),
      additionalInfo: { payerIssuer: '93600009', payerName: 'ANI', payerRefId: '123456' },
    });
    // Named the acquirer of the QRIS snapgate issues itself, for its notifications and callbacks only
    // (the sandbox acquirer pays them again afterwards).
    const naming = (on: boolean) =>
      admin('PATCH', '/admin/v1/providers/{id}', { params: { id: acquirer.id }, body: { acquiresGatewayQris: on } });
    assert.equal((await naming(true)).status, 200);
    assert.equal((await snap(NOTIFY, acquirer, notice(notified.referenceNo))).status, 200);
    assert.equal((await snap(NOTIFY, acquirer, notice('000000000000000000'))).status, 404);
    assert.equal((await snap(NOTIFY, acquirer, notice(refs.open.referenceNo, '1.00'))).status, 400);

    // Another snapgate calling back as that acquirer.
    const upstreamPaid = await generate('UPSTREAM');
    const callbackBody = (referenceNo: string) => ({
      originalReferenceNo: '260115987654321098',
      originalPartnerReferenceNo: referenceNo,
      latestTransactionStatus: '00',
      amount: idr('25000.00'),
      additionalInfo: {
        payerIssuer: '93600009',
        payerName: 'ANI',
        payerRefId: '123456789012',
        billNumber: 100000000001,
        transactionDate: formatJakartaTimestamp(Date.now()),
        feeAmount: idr('0.00'),
      },
    });
    const up = await upstream(acquirer.id, callbackBody(upstreamPaid.referenceNo));
    assert.deepEqual([up.status, up.body], [200, { responseCode: '2002600', responseMessage: 'Successful' }]);
    assert.deepEqual(await snapApi.requestErrors('POST', WEBHOOK, callbackBody(upstreamPaid.referenceNo)), []);
    assert.equal((await upstream(acquirer.id, callbackBody(refs.open.referenceNo), { secret: 'wrong' })).status, 401);
    assert.equal((await upstream('no-such-provider', callbackBody(refs.open.referenceNo))).status, 401);
    assert.equal((await upstream(acquirer.id, callbackBody('000000000000000000'))).status, 404);
    assert.equal((await naming(false)).status, 200);
  });

  it('SNAP: every signed operation refuses a call without its token', async () => {
    for (const key of snapApi.operations()) {
      const [method, template] = key.split(' ') as [string, string];
      const op = snapApi.operation(method, template);
      if ((op.security as Json[]).length === 0 || template === TOKEN || template === `${API}/access-token/b2b2c`) {
        continue;
      }
      if (template === WEBHOOK) {
        assert.equal((await upstream('x', {}, { headers: { 'x-signature': 'x' } })).status, 401);
        continue;
      }
      const r = await snap(template, m, {}, { method, headers: { authorization: undefined } });
      assert.equal(r.status, 401, key);
    }
  });

  it('SNAP: the merchant’s callbacks are the documented webhooks', async () => {
    const qris = await waitFor('a QRIS callback', () =>
      receiver.received.find((r) => r.url === '/webhook/payment-qr-notification'),
    );
    const va = await waitFor('a VA callback', () =>
      receiver.received.find((r) => r.url === '/webhook/payment-va-notification'),
    );
    const wallet = await waitFor('an e-wallet callback', () =>
      receiver.received.find((r) => r.url === '/v1.0/debit/notify'),
    );
    await checkCallback('payment-qr-notification', qris);
    await checkCallback('payment-va-notification', va);
    await checkCallback('debit-notify', wallet);
  });

  it('SNAP: bodies and headers the document refuses are refused by the gateway (400)', async () => {
    const fresh = async (label: string) => {
      const r = await snap(`${API}/qr/qr-mpm-generate`, m, {
        partnerReferenceNo: next(label),
        amount: idr('25000.00'),
      });
      return r.body;
    };
    const unpaid = await fresh('MUT');
    const paid = refs.paid;
    const vaOpen = (
      await snap(`${API}/transfer-va/create-va`, m, {
        virtualAccountName: 'Mut',
        trxId: next('MUT'),
        totalAmount: idr('50000.00'),
        additionalInfo: { bankCode: '014' },
      })
    ).body.virtualAccountData;
    const numbers = {
      partnerServiceId: vaOpen.partnerServiceId,
      customerNo: vaOpen.customerNo,
      virtualAccountNo: vaOpen.virtualAccountNo,
    };
    const ts = formatJakartaTimestamp(Date.now() + 3600_000);
    const cases: Array<[string, SnapCaller, Json]> = [
      [
        `${API}/qr/qr-mpm-generate`,
        m,
        {
          partnerReferenceNo: next('MUT'),
          amount: idr('1000.00'),
          merchantId: 'M',
          terminalId: 'T',
          storeId: 'S',
          validityPeriod: ts,
          additionalInfo: { a: 1 },
        },
      ],
      [
        `${API}/qr/qr-mpm-query`,
        m,
        {
          originalReferenceNo: unpaid.referenceNo,
          originalPartnerReferenceNo: unpaid.partnerReferenceNo,
          serviceCode: '47',
        },
      ],
      [
        `${API}/qr/qr-mpm-cancel`,
        m,
        { originalReferenceNo: unpaid.referenceNo, originalPartnerReferenceNo: unpaid.partnerReferenceNo, reason: 'r' },
      ],
      [
        `${API}/qr/qr-mpm-refund`,
        m,
        {
          originalReferenceNo: paid.referenceNo,
          originalPartnerReferenceNo: paid.partnerReferenceNo,
          partnerRefundNo: next('RF'),
          refundAmount: idr('1.00'),
          reason: 'r',
        },
      ],
      [
        `${API}/transfer-va/create-va`,
        m,
        {
          virtualAccountName: 'Mut',
          trxId: next('MUT'),
          virtualAccountTrxType: 'C',
          totalAmount: idr('1.00'),
          virtualAccountEmail: 'a@b.c',
          virtualAccountPhone: '+62812345',
          expiredDate: ts,
          additionalInfo: { bankCode: '014' },
        },
      ],
      [`${API}/transfer-va/inquiry-va`, m, { virtualAccountNo: vaOpen.virtualAccountNo, trxId: vaOpen.trxId }],
      [`${API}/transfer-va/status`, m, { virtualAccountNo: vaOpen.virtualAccountNo, trxId: vaOpen.trxId }],
      [
        `${API}/transfer-va/update-va`,
        m,
        {
          virtualAccountNo: vaOpen.virtualAccountNo,
          trxId: vaOpen.trxId,
          virtualAccountName: 'Mut',
          totalAmount: idr('50000.00'),
          expiredDate: ts,
        },
      ],
      [`${API}/transfer-va/delete-va`, m, { virtualAccountNo: vaOpen.virtualAccountNo, trxId: vaOpen.trxId }],
      [
        ACCOUNT_INQUIRY,
        m,
        {
          partnerReferenceNo: 'INQ-1',
          beneficiaryBankCode: '014',
          beneficiaryAccountNo: '1234567890',
          additionalInfo: { a: 1 },
        },
      ],
      [
        TRANSFER_INTERBANK,
        m,
        {
          partnerReferenceNo: next('MUT'),
          amount: idr('1.00'),
          beneficiaryAccountName: 'Mut',
          beneficiaryAccountNo: '1234567890',
          beneficiaryBankCode: '014',
          sourceAccountNo: '1',
          transactionDate: ts,
          remark: 'r',
          customerReference: 'c',
          beneficiaryEmail: 'a@b.c',
          additionalInfo: { a: 1 },
        },
      ],
      [
        TRANSFER_STATUS,
        m,
        {
          originalPartnerReferenceNo: 'MUT-1',
          originalReferenceNo: 'PO1',
          originalExternalId: '1',
          serviceCode: '18',
          transactionDate: ts,
          additionalInfo: { a: 1 },
        },
      ],
      [`${API}/transfer-va/inquiry`, bank, { ...numbers, inquiryRequestId: 'INQ-1' }],
      [
        `${API}/transfer-va/payment`,
        bank,
        {
          ...numbers,
          paymentRequestId: next('PAY'),
          paidAmount: idr('50000.00'),
          trxDateTime: ts,
          referenceNo: 'BNK-1',
          flagAdvise: 'N',
          additionalInfo: { payerName: 'P' },
        },
      ],
      [
        `${API}/qr/qr-mpm-notify`,
        acquirer,
        {
          originalPartnerReferenceNo: unpaid.referenceNo,
          originalReferenceNo: 'A-1',
          latestTransactionStatus: '01',
          transactionStatusDesc: 'Initiated',
          amount: idr('25000.00'),
          additionalInfo: { payerIssuer: '936', payerName: 'P', payerRefId: '1' },
        },
      ],
    ];
    let refused = 0;
    for (const [template, caller, body] of cases) {
      const method = Object.keys(snapApi.doc.paths[template])[0] as string;
      assert.deepEqual(await snapApi.requestErrors(method, template, body), [], `${template}: the base body fits`);
      const op = snapApi.operation(method, template);
      const schema = op.requestBody.content['application/json'].schema;
      for (const mutation of mutationsOf(snapApi, schema, body)) {
        if ((await snapApi.requestErrors(method, template, mutation.body)).length === 0) continue;
        const r = await snap(template, caller, mutation.body, { method: method.toUpperCase() });
        assert.equal(r.status, 400, `${template} ${mutation.what}: ${r.text}`);
        refused++;
      }
      // Headers: each required one left out, and each off its documented format.
      for (const p of snapApi.parameters(op).filter((x) => x.in === 'header' && x.required)) {
        const name = p.name.toLowerCase();
        assert.equal(
          (await snap(template, caller, body, { method: method.toUpperCase(), headers: { [name]: undefined } })).status,
          400,
          `${template} without ${p.name}`,
        );
        const ps = snapApi.resolve(p.schema);
        const bad = ps.pattern ? '!' : ps.maxLength ? 'x'.repeat(ps.maxLength + 1) : undefined;
        if (bad)
          assert.equal(
            (await snap(template, caller, body, { method: method.toUpperCase(), headers: { [name]: bad } })).status,
            400,
            `${template} ${p.name}: ${bad}`,
          );
        refused++;
      }
    }
    // The token request and another snapgate's callback.
    for (const mutation of mutationsOf(
      snapApi,
      snapApi.doc.paths[TOKEN].post.requestBody.content['application/json'].schema,
      { grantType: 'client_credentials' },
    )) {
      assert.notDeepEqual(await snapApi.requestErrors('POST', TOKEN, mutation.body), []);
      const r = await token({
        clientKey: m.clientKey,
        clientSecret: m.clientSecret,
        body: JSON.stringify(mutation.body),
      });
      assert.equal(r.status, 400, `token ${mutation.what}`);
      refused++;
    }
    for (const name of ['x-client-key', 'x-timestamp']) {
      assert.equal(
        (await token({ clientKey: m.clientKey, clientSecret: m.clientSecret, headers: { [name]: undefined } })).status,
        400,
      );
    }
    const webhookBody = {
      originalPartnerReferenceNo: unpaid.referenceNo,
      originalReferenceNo: 'U-1',
      latestTransactionStatus: '01',
      transactionStatusDesc: 'Initiated',
      amount: idr('25000.00'),
      additionalInfo: { payerIssuer: '936', payerName: 'P', payerRefId: '1' },
    };
    for (const mutation of mutationsOf(
      snapApi,
      snapApi.doc.paths[WEBHOOK].post.requestBody.content['application/json'].schema,
      webhookBody,
    )) {
      if ((await snapApi.requestErrors('POST', WEBHOOK, mutation.body)).length === 0) continue;
      assert.equal((await upstream(acquirer.id, mutation.body)).status, 400, `webhook ${mutation.what}`);
      refused++;
    }
    for (const name of ['x-timestamp', 'x-external-id']) {
      assert.equal((await upstream(acquirer.id, webhookBody, { headers: { [name]: undefined } })).status, 400, name);
    }
    assert.ok(refused > 150, `${refused} refusals`);
  });

  it('admin: every operation answers as documented', async () => {
    // Merchants.
    assert.equal((await admin('POST', '/admin/v1/merchants', { body: {} })).status, 400);
    assert.equal(
      (await admin('POST', '/admin/v1/merchants', { body: { name: 'Dup', partnerId: merchant.partnerId } })).status,
      409,
    );
    assert.equal(
      (await admin('POST', '/admin/v1/merchants', { raw: JSON.stringify({ name: 'x'.repeat(70_000) }) })).status,
      413,
    );
    assert.equal((await admin('GET', '/admin/v1/merchants', { query: 'limit=2' })).status, 200);
    assert.equal((await admin('GET', '/admin/v1/merchants', { query: 'limit=0' })).status, 400);
    const id = { id: merchant.id };
    assert.equal((await admin('GET', '/admin/v1/merchants/{id}', { params: id })).status, 200);
    assert.equal((await admin('GET', '/admin/v1/merchants/{id}', { params: { id: 'nope' } })).status, 404);
    assert.equal((await admin('GET', '/admin/v1/merchants/{id}', { params: { id: 'x'.repeat(65) } })).status, 400);
    assert.equal(
      (
        await admin('PATCH', '/admin/v1/merchants/{id}', {
          params: id,
          body: { name: 'OpenAPI Merchant 2', qrisCallbackUrl: null },
        })
      ).status,
      200,
    );
    assert.equal((await admin('PATCH', '/admin/v1/merchants/{id}', { params: id, body: {} })).status, 400);
    assert.equal(
      (await admin('PATCH', '/admin/v1/merchants/{id}', { params: { id: 'nope' }, body: { name: 'x' } })).status,
      404,
    );
    const spare = (await admin('POST', '/admin/v1/merchants', { body: { name: 'Spare' } })).body;
    assert.equal(
      (await admin('POST', '/admin/v1/merchants/{id}/rotate-secret', { params: { id: spare.id } })).status,
      200,
    );
    assert.equal(
      (
        await admin('POST', '/admin/v1/merchants/{id}/rotate-secret', {
          params: { id: spare.id },
          body: { overlapSec: 60 },
        })
      ).status,
      200,
    );
    assert.equal(
      (await admin('POST', '/admin/v1/merchants/{id}/rotate-secret', { params: { id: 'nope' } })).status,
      404,
    );
    assert.equal(
      (await admin('POST', '/admin/v1/merchants/{id}/portal-link', { params: { id: spare.id } })).status,
      201,
    );
    assert.equal((await admin('POST', '/admin/v1/merchants/{id}/portal-link', { params: { id: 'nope' } })).status, 404);
    const invited = await admin('POST', '/admin/v1/merchants/{id}/users', {
      params: { id: spare.id },
      body: { email: `openapi.${Date.now()}@toko.example`, role: 'viewer' },
    });
    assert.equal(invited.status, 201);
    const user = { id: spare.id, userId: (invited.body as { id: string }).id };
    assert.equal(
      (
        await admin('POST', '/admin/v1/merchants/{id}/users', {
          params: { id: spare.id },
          body: { email: 'x', role: 'viewer' },
        })
      ).status,
      400,
    );
    assert.equal((await admin('GET', '/admin/v1/merchants/{id}/users', { params: { id: spare.id } })).status, 200);
    assert.equal((await admin('GET', '/admin/v1/merchants/{id}/users', { params: { id: 'nope' } })).status, 404);
    assert.equal((await admin('GET', '/admin/v1/merchants/{id}/users/{userId}', { params: user })).status, 200);
    assert.equal(
      (await admin('GET', '/admin/v1/merchants/{id}/users/{userId}', { params: { ...user, userId: 'mu_nope' } }))
        .status,
      404,
    );
    assert.equal(
      (await admin('PATCH', '/admin/v1/merchants/{id}/users/{userId}', { params: user, body: { role: 'finance' } }))
        .status,
      200,
    );
    assert.equal(
      (await admin('PATCH', '/admin/v1/merchants/{id}/users/{userId}', { params: user, body: { role: 'boss' } }))
        .status,
      400,
    );
    assert.equal(
      (await admin('POST', '/admin/v1/merchants/{id}/users/{userId}/invitation', { params: user })).status,
      201,
    );
    assert.equal(
      (await admin('POST', '/admin/v1/merchants/{id}/users/{userId}/reset-two-factor', { params: user })).status,
      200,
    );
    assert.equal(
      (
        await admin('POST', '/admin/v1/merchants/{id}/users/{userId}/reset-two-factor', {
          params: { ...user, userId: 'mu_nope' },
        })
      ).status,
      404,
    );
    assert.equal(
      (await admin('POST', '/admin/v1/merchants/{id}/users/{userId}/disable', { params: user })).status,
      200,
    );
    assert.equal(
      (await admin('POST', '/admin/v1/merchants/{id}/users/{userId}/disable', { params: user })).status,
      409,
    );
    assert.equal(
      (await admin('POST', '/admin/v1/merchants/{id}/users/{userId}/invitation', { params: user })).status,
      409,
    );
    const made = await admin('POST', '/admin/v1/merchants/{id}/links', {
      params: { id: spare.id },
      body: { description: 'Kopi susu', amount: idr('25000.00'), methods: ['qris'] },
    });
    assert.equal(made.status, 201);
    const link = { id: spare.id, linkId: (made.body as { id: string }).id };
    assert.equal(
      (
        await admin('POST', '/admin/v1/merchants/{id}/links', {
          params: { id: spare.id },
          body: { amount: idr('1.00') },
        })
      ).status,
      400,
    );
    assert.equal((await admin('GET', '/admin/v1/merchants/{id}/links', { params: { id: spare.id } })).status, 200);
    assert.equal((await admin('GET', '/admin/v1/merchants/{id}/links', { params: { id: 'nope' } })).status, 404);
    assert.equal((await admin('GET', '/admin/v1/merchants/{id}/links/{linkId}', { params: link })).status, 200);
    assert.equal(
      (await admin('GET', '/admin/v1/merchants/{id}/links/{linkId}', { params: { ...link, linkId: 'pl_nope' } }))
        .status,
      404,
    );
    assert.equal(
      (await admin('PATCH', '/admin/v1/merchants/{id}/links/{linkId}', { params: link, body: { active: false } }))
        .status,
      200,
    );
    assert.equal(
      (await admin('PATCH', '/admin/v1/merchants/{id}/links/{linkId}', { params: link, body: { active: false } }))
        .status,
      409,
    );
    const since = new Date(Date.now() - 3600_000).toISOString();
    assert.equal(
      (await admin('POST', '/admin/v1/merchants/{id}/recover', { params: id, body: { since } })).status,
      200,
    );
    assert.equal(
      (await admin('POST', '/admin/v1/merchants/{id}/recover', { params: id, body: { since: 'yesterday' } })).status,
      400,
    );
    assert.equal(
      (await admin('POST', '/admin/v1/merchants/{id}/recover', { params: { id: 'nope' }, body: { since } })).status,
      404,
    );

    // Transactions.
    assert.equal(
      (await admin('GET', '/admin/v1/transactions', { query: `merchantId=${merchant.id}&limit=50` })).status,
      200,
    );
    assert.equal((await admin('GET', '/admin/v1/transactions', { query: 'status=99' })).status, 400);
    const txn = await admin('GET', '/admin/v1/transactions/{referenceNo}', {
      params: { referenceNo: refs.paid.referenceNo },
    });
    assert.ok(txn.body.statusHistory.length >= 2);
    assert.equal(
      (await admin('GET', '/admin/v1/transactions/{referenceNo}', { params: { referenceNo: 'nope' } })).status,
      404,
    );

    // Notifications: the paid QRIS, refunded in part above (00, 00 again), is refunded in full (04);
    // the last is delivered, and an older one cannot be replayed.
    const full = await snap(`${API}/qr/qr-mpm-refund`, m, {
      originalPartnerReferenceNo: refs.paid.partnerReferenceNo,
      partnerRefundNo: next('RF'),
      refundAmount: idr('20000.00'),
    });
    assert.equal(full.status, 200, full.text);
    const delivered = await waitFor('every notification delivered (or superseded)', async () => {
      const r = await admin('GET', '/admin/v1/notifications', { query: `referenceNo=${refs.paid.referenceNo}` });
      const items = r.body.items as Json[];
      const isDone = (n: Json) =>
        n.state === 'delivered' || (n.state === 'superseded' && n.latestTransactionStatus !== '04');
      return items.length === 3 && items.every(isDone) && items;
    });
    const newer = delivered.find((n) => n.latestTransactionStatus === '04') as Json;
    const older = delivered.find((n) => n.latestTransactionStatus === '00') as Json;
    assert.equal(newer.state, 'delivered');
    assert.equal((await admin('GET', '/admin/v1/notifications', { query: 'bogus=1' })).status, 400);
    const shown = await admin('GET', '/admin/v1/notifications/{id}', { params: { id: newer.id } });
    assert.ok(shown.body.attempts.length >= 1);
    assert.equal((await admin('GET', '/admin/v1/notifications/{id}', { params: { id: '1' } })).status, 404);
    assert.equal(
      (await admin('POST', '/admin/v1/notifications/{id}/replay', { params: { id: older.id } })).status,
      409,
    );
    assert.equal(
      (await admin('POST', '/admin/v1/notifications/{id}/replay', { params: { id: newer.id } })).status,
      202,
    );
    assert.equal((await admin('POST', '/admin/v1/notifications/{id}/replay', { params: { id: '1' } })).status, 404);
    assert.equal(
      (await admin('GET', '/admin/v1/reports/undelivered', { query: `merchantId=${merchant.id}` })).status,
      200,
    );
    assert.equal((await admin('GET', '/admin/v1/reports/undelivered', { query: 'limit=0' })).status, 400);

    // Providers.
    assert.equal(
      (await admin('POST', '/admin/v1/providers', { body: { name: 'Bad', kind: 'wallet', bankCode: '1' } })).status,
      400,
    );
    assert.equal(
      (await admin('POST', '/admin/v1/providers', { body: { name: 'Second 014', kind: 'bank', bankCode: '014' } }))
        .status,
      409,
    );
    assert.equal((await admin('GET', '/admin/v1/providers', { query: 'limit=500' })).status, 200);
    assert.equal((await admin('GET', '/admin/v1/providers', { query: `cursor=${'x'.repeat(600)}` })).status, 400);
    const pid = { id: bank.id };
    assert.equal((await admin('GET', '/admin/v1/providers/{id}', { params: pid })).status, 200);
    assert.equal((await admin('GET', '/admin/v1/providers/{id}', { params: { id: 'nope' } })).status, 404);
    assert.equal(
      (await admin('PATCH', '/admin/v1/providers/{id}', { params: pid, body: { name: 'Bank OpenAPI 2' } })).status,
      200,
    );
    assert.equal((await admin('PATCH', '/admin/v1/providers/{id}', { params: pid, body: {} })).status, 400);
    assert.equal(
      (await admin('PATCH', '/admin/v1/providers/{id}', { params: { id: 'nope' }, body: { name: 'x' } })).status,
      404,
    );
    const spareBank = (
      await admin('POST', '/admin/v1/providers', { body: { name: 'Spare', kind: 'bank', bankCode: '451' } })
    ).body;
    assert.equal(
      (
        await admin('POST', '/admin/v1/providers/{id}/rotate-secret', {
          params: { id: spareBank.id },
          body: { overlapSec: 0 },
        })
      ).status,
      200,
    );
    assert.equal(
      (await admin('POST', '/admin/v1/providers/{id}/rotate-secret', { params: { id: 'nope' } })).status,
      404,
    );
    await waitFor(
      'the bank’s calls logged',
      async () => (await admin('GET', '/admin/v1/providers/{id}/inbound', { params: pid })).body.items.length > 0,
    );
    assert.equal((await admin('GET', '/admin/v1/providers/{id}/inbound', { params: { id: 'nope' } })).status, 404);

    // Sandbox: pay a QRIS by reference and by content, a VA; refusals.
    const QR_PAY = '/admin/v1/sandbox/qris/{referenceNo}/pay';
    const fresh = (
      await snap(`${API}/qr/qr-mpm-generate`, m, { partnerReferenceNo: next('SBX'), amount: idr('7000.00') })
    ).body;
    assert.equal((await admin('POST', QR_PAY, { params: { referenceNo: fresh.referenceNo } })).status, 200);
    assert.equal((await admin('POST', QR_PAY, { params: { referenceNo: 'nope' }, body: {} })).status, 404);
    assert.equal(
      (await admin('POST', QR_PAY, { params: { referenceNo: refs.canceled.referenceNo }, body: { status: '00' } }))
        .status,
      409,
    );
    assert.equal(
      (await admin('POST', QR_PAY, { params: { referenceNo: fresh.referenceNo }, body: { status: '99' } })).status,
      400,
    );
    const scanned = (
      await snap(`${API}/qr/qr-mpm-generate`, m, { partnerReferenceNo: next('SCAN'), amount: idr('8000.00') })
    ).body;
    assert.equal(
      (
        await admin('POST', '/admin/v1/sandbox/qris/pay', {
          body: { qrContent: scanned.qrContent, payerName: 'SCANNER', payerIssuer: '93600009', payerRefId: '42' },
        })
      ).status,
      200,
    );
    assert.equal(
      (
        await admin('POST', '/admin/v1/sandbox/qris/pay', {
          body: { qrContent: `${scanned.qrContent.slice(0, -4)}0000` },
        })
      ).status,
      404,
    );
    assert.equal((await admin('POST', '/admin/v1/sandbox/qris/pay', { body: {} })).status, 400);
    const VA_PAY = '/admin/v1/sandbox/va/{virtualAccountNo}/pay';
    const sandboxVa = (
      await snap(`${API}/transfer-va/create-va`, m, {
        virtualAccountName: 'Sandbox',
        trxId: next('SBX'),
        totalAmount: idr('12000.00'),
      })
    ).body.virtualAccountData;
    assert.equal(
      (
        await admin('POST', VA_PAY, {
          params: { virtualAccountNo: sandboxVa.virtualAccountNo },
          body: { amount: '12000.00' },
        })
      ).status,
      200,
    );
    const again = await admin('POST', VA_PAY, { params: { virtualAccountNo: sandboxVa.virtualAccountNo } });
    assert.deepEqual([again.status, again.body.responseCode], [404, '4042414']);
    assert.equal(
      (await admin('POST', VA_PAY, { params: { virtualAccountNo: sandboxVa.virtualAccountNo }, body: { amount: '1' } }))
        .status,
      400,
    );

    // Webhook certification: a run with transactions of its own, and refusals.
    const CERTIFY = '/admin/v1/merchants/{id}/certifications';
    const certified = (
      await admin('POST', '/admin/v1/merchants', { body: { name: 'Certified', callbackBaseUrl: receiver.baseUrl } })
    ).body;
    const certification = await admin('POST', CERTIFY, { params: { id: certified.id }, body: { create: true } });
    assert.equal(certification.status, 201);
    assert.equal((await admin('POST', CERTIFY, { params: { id: certified.id } })).status, 422);
    assert.equal((await admin('POST', CERTIFY, { params: { id: 'nope' } })).status, 404);
    assert.equal((await admin('POST', CERTIFY, { params: { id: certified.id }, body: { qris: ['x'] } })).status, 400);
    assert.equal((await admin('GET', CERTIFY, { params: { id: certified.id } })).status, 200);
    assert.equal((await admin('GET', CERTIFY, { params: { id: 'nope' } })).status, 404);
    const CERTIFICATION = '/admin/v1/certifications/{id}';
    assert.equal((await admin('GET', CERTIFICATION, { params: { id: certification.body.id } })).status, 200);
    assert.equal((await admin('GET', CERTIFICATION, { params: { id: 'nope' } })).status, 404);

    // The books: balances, the ledger, settlements, payouts, reconciliation.
    assert.equal((await admin('GET', '/admin/v1/merchants/{id}/balance', { params: id })).status, 200);
    assert.equal((await admin('GET', '/admin/v1/merchants/{id}/balance', { params: { id: 'nope' } })).status, 404);
    assert.equal((await admin('GET', '/admin/v1/ledger/entries', { query: `merchantId=${merchant.id}` })).status, 200);
    assert.equal((await admin('GET', '/admin/v1/ledger/entries', { query: 'kind=fee' })).status, 400);
    assert.equal((await admin('GET', '/admin/v1/ledger/verify')).status, 200);
    assert.equal((await admin('GET', '/admin/v1/ledger/verify', { query: 'full=true' })).status, 200);
    assert.equal((await admin('GET', '/admin/v1/ledger/verify', { query: 'full=yes' })).status, 400);
    // The full verification in the background: started, then asked about until it is done.
    const job = await admin('POST', '/admin/v1/ledger/verifications');
    assert.equal(job.status, 202, job.text);
    const deadline = Date.now() + 30_000;
    for (let state = job.body.state; state === 'running'; ) {
      assert.ok(Date.now() < deadline, 'the verification ends');
      await new Promise((r) => setImmediate(r));
      const asked = await admin('GET', '/admin/v1/ledger/verifications/{id}', { params: { id: job.body.id } });
      assert.equal(asked.status, 200, asked.text);
      state = asked.body.state;
      if (state !== 'running') assert.equal(asked.body.result?.mode, 'full', asked.text);
    }
    assert.equal(
      (await admin('GET', '/admin/v1/ledger/verifications/{id}', { params: { id: 'ver_none' } })).status,
      404,
    );
    const settled = await admin('POST', '/admin/v1/settlements', { body: { merchantId: merchant.id } });
    assert.equal(settled.status, 201);
    assert.equal((await admin('POST', '/admin/v1/settlements', { body: { merchantId: 'nope' } })).status, 404);
    assert.equal((await admin('POST', '/admin/v1/settlements', { body: { cutoff: 'now' } })).status, 400);
    assert.equal((await admin('GET', '/admin/v1/settlements', { query: 'status=open' })).status, 200);
    assert.equal((await admin('GET', '/admin/v1/settlements', { query: 'status=late' })).status, 400);
    const settlement = { id: (settled.body.items as Json[])[0]?.id as string };
    assert.ok(settlement.id, 'the merchant had payments to settle');
    for (const path of ['/admin/v1/settlements/{id}', '/admin/v1/settlements/{id}/report.csv']) {
      assert.equal((await admin('GET', path, { params: settlement })).status, 200);
      assert.equal((await admin('GET', path, { params: { id: 'nope' } })).status, 404);
      assert.equal((await admin('GET', path, { params: { id: 'x'.repeat(65) } })).status, 400);
    }
    const PAYOUT = '/admin/v1/settlements/{id}/payout';
    assert.equal((await admin('POST', PAYOUT, { params: settlement, body: { bankReference: '' } })).status, 400);
    // Through the bank: the merchant has no verified payoutAccount yet.
    assert.equal((await admin('POST', PAYOUT, { params: settlement, body: {} })).status, 409);
    assert.equal((await admin('POST', PAYOUT, { params: settlement, body: { bankReference: 'TRF-1' } })).status, 200);
    assert.equal((await admin('POST', PAYOUT, { params: settlement, body: { bankReference: 'TRF-2' } })).status, 409);
    assert.equal(
      (await admin('POST', PAYOUT, { params: { id: 'nope' }, body: { bankReference: 'TRF-3' } })).status,
      404,
    );
    // Payouts through the bank (docs/payouts.md), each waiting for a second key here.
    const payoutAccount = { bankCode: '999', accountNo: '1234567890', accountName: 'SANDBOX 7890' };
    assert.equal(
      (await admin('PATCH', '/admin/v1/merchants/{id}', { params: id, body: { payoutAccount } })).status,
      200,
    );
    const approver = await admin('POST', '/admin/v1/admin-keys', {
      body: { name: 'openapi-approver', scope: 'admin' },
    });
    const awaiting = async () => {
      const q = (
        await snap(`${API}/qr/qr-mpm-generate`, m, { partnerReferenceNo: next('PAYOUT'), amount: idr('5000.00') })
      ).body;
      assert.equal((await admin('POST', QR_PAY, { params: { referenceNo: q.referenceNo } })).status, 200);
      const made = await admin('POST', '/admin/v1/settlements', { body: { merchantId: merchant.id } });
      const asked = await admin('POST', PAYOUT, { params: { id: made.body.items[0].id }, body: {} });
      assert.equal(asked.status, 202, asked.text);
      return { id: asked.body.payoutId as string };
    };
    const toApprove = await awaiting();
    assert.equal((await admin('GET', '/admin/v1/payouts', { query: 'state=awaiting_approval' })).status, 200);
    assert.equal((await admin('GET', '/admin/v1/payouts', { query: 'state=late' })).status, 400);
    assert.equal((await admin('GET', '/admin/v1/payouts/{id}', { params: toApprove })).status, 200);
    assert.equal((await admin('GET', '/admin/v1/payouts/{id}', { params: { id: 'nope' } })).status, 404);
    const APPROVE = '/admin/v1/payouts/{id}/approve';
    const REJECT = '/admin/v1/payouts/{id}/reject';
    assert.equal((await admin('POST', APPROVE, { params: toApprove })).status, 403, 'the key that asked');
    assert.equal((await admin('POST', APPROVE, { params: toApprove, token: approver.body.key })).status, 200);
    assert.equal((await admin('POST', APPROVE, { params: toApprove, token: approver.body.key })).status, 409);
    const toReject = await awaiting();
    assert.equal((await admin('POST', REJECT, { params: toReject, token: approver.body.key })).status, 200);
    assert.equal((await admin('POST', REJECT, { params: { id: 'nope' } })).status, 404);
    // The bootstrap key is the last admin key again (its revocation is refused below).
    const revoked = await admin('POST', '/admin/v1/admin-keys/{id}/revoke', { params: { id: approver.body.id } });
    assert.equal(revoked.status, 200);
    const acquirerId = (await gw.store.getSetting('sandbox_acquirer_provider_id')) as string;
    const unpaid = (
      await snap(`${API}/qr/qr-mpm-generate`, m, { partnerReferenceNo: next('REC'), amount: idr('10.00') })
    ).body.referenceNo as string;
    const RECONCILE = '/admin/v1/providers/{id}/reconciliations';
    const reportCsv = `referenceNo,providerReference,amount,paidAt,status\n${unpaid},,10.00,${formatJakartaTimestamp(Date.now())},00\n`;
    const reconciled = await admin('POST', RECONCILE, {
      params: { id: acquirerId },
      raw: reportCsv,
      contentType: 'text/csv',
    });
    assert.equal(reconciled.status, 201);
    assert.equal(
      (await admin('POST', RECONCILE, { params: { id: acquirerId }, raw: 'a,b\n', contentType: 'text/csv' })).status,
      400,
    );
    assert.equal(
      (await admin('POST', RECONCILE, { params: { id: 'nope' }, raw: reportCsv, contentType: 'text/csv' })).status,
      404,
    );
    assert.equal(
      (
        await admin('POST', RECONCILE, {
          params: { id: acquirerId },
          body: { items: [{ referenceNo: unpaid, amount: '10.00', paidAt: formatJakartaTimestamp(Date.now()) }] },
        })
      ).status,
      201,
    );
    assert.equal((await admin('GET', RECONCILE, { params: { id: acquirerId } })).status, 200);
    assert.equal((await admin('GET', RECONCILE, { params: { id: 'nope' } })).status, 404);
    assert.equal((await admin('GET', RECONCILE, { params: { id: acquirerId }, query: 'limit=0' })).status, 400);
    const run = { id: reconciled.body.id as string };
    assert.equal((await admin('GET', '/admin/v1/reconciliations/{id}', { params: run })).status, 200);
    assert.equal((await admin('GET', '/admin/v1/reconciliations/{id}', { params: { id: 'nope' } })).status, 404);
    assert.equal(
      (await admin('GET', '/admin/v1/reconciliations/{id}', { params: { id: 'x'.repeat(65) } })).status,
      400,
    );
    const PROBLEMS = '/admin/v1/reconciliations/{id}/problems';
    assert.equal((await admin('GET', PROBLEMS, { params: run, query: 'limit=1' })).status, 200);
    assert.equal((await admin('GET', PROBLEMS, { params: { id: 'nope' } })).status, 404);
    assert.equal((await admin('GET', PROBLEMS, { params: run, query: 'limit=0' })).status, 400);
    assert.equal((await admin('GET', PROBLEMS, { params: run, query: 'cursor=not-a-cursor' })).status, 400);
    const APPLY = '/admin/v1/reconciliations/{id}/problems/{line}/apply';
    assert.equal((await admin('POST', APPLY, { params: { ...run, line: '1' } })).status, 200);
    assert.equal((await admin('POST', APPLY, { params: { ...run, line: '1' } })).status, 409);
    assert.equal((await admin('POST', APPLY, { params: { id: 'nope', line: '1' } })).status, 404);
    assert.equal((await admin('POST', APPLY, { params: { ...run, line: 'x' } })).status, 400);

    // Admin keys, the audit log, the master keys.
    const reader = await admin('POST', '/admin/v1/admin-keys', { body: { name: 'openapi-reader', scope: 'read' } });
    assert.equal(reader.status, 201);
    assert.equal(
      (await admin('POST', '/admin/v1/admin-keys', { body: { name: 'openapi-reader', scope: 'read' } })).status,
      409,
    );
    assert.equal((await admin('POST', '/admin/v1/admin-keys', { body: { name: '!', scope: 'root' } })).status, 400);
    const keys = (await admin('GET', '/admin/v1/admin-keys')).body.items as Json[];
    const second = await admin('POST', '/admin/v1/admin-keys', { body: { name: 'openapi-admin', scope: 'admin' } });
    const REVOKE = '/admin/v1/admin-keys/{id}/revoke';
    assert.equal((await admin('POST', REVOKE, { params: { id: second.body.id } })).status, 200);
    assert.equal((await admin('POST', REVOKE, { params: { id: 'nope' } })).status, 404);
    const bootstrap = keys.find((k) => k.name === 'bootstrap');
    assert.ok(bootstrap, 'the bootstrap key is listed');
    assert.equal((await admin('POST', REVOKE, { params: { id: bootstrap.id } })).status, 409);
    assert.equal((await admin('GET', '/admin/v1/audit', { query: `target=${merchant.id}` })).status, 200);
    assert.equal((await admin('GET', '/admin/v1/audit', { query: 'limit=0' })).status, 400);
    assert.equal((await admin('GET', '/admin/v1/keys')).status, 200);
    assert.equal((await admin('POST', '/admin/v1/keys/rotate')).status, 200);

    // Health (public).
    assert.equal((await admin('GET', '/healthz', { token: null })).status, 200);
    assert.equal((await admin('GET', '/metrics', { token: null })).status, 200);
    assert.equal((await admin('GET', '/readyz', { token: null })).status, 200);
    const store = gw.store as { ping: () => Promise<void> };
    const ping = store.ping;
    store.ping = async () => {
      throw new Error('store down');
    };
    try {
      assert.equal((await admin('GET', '/readyz', { token: null })).status, 503);
    } finally {
      store.ping = ping;
    }

    // Every admin operation refuses a call without the admin token, and a control character in its query.
    for (const key of adminApi.operations()) {
      const [method, template] = key.split(' ') as [string, string];
      if ((adminApi.operation(method, template).security as Json[] | undefined)?.length === 0) continue;
      assert.equal((await admin(method, template, { token: 'wrong' })).status, 401, key);
      assert.equal((await admin(method, template, { query: 'note=%01' })).status, 400, key);
      // A read key may only look.
      const forbidden = await admin(method, template, { token: reader.body.key });
      if (method !== 'GET') assert.equal(forbidden.status, 403, key);
    }
  });

  it('every documented operation was called, answering a success and an error', (t) => {
    const missing: string[] = [];
    const untried: string[] = [];
    for (const api of [snapApi, adminApi]) {
      for (const key of api.operations()) {
        const statuses = [...(api.seen.get(key) ?? [])];
        const [method, template] = key.split(' ') as [string, string];
        if (!statuses.some((s) => s < 300)) missing.push(`${api.name} ${key}: no success`);
        if (!statuses.some((s) => s >= 400) && !NEVER_FAILS.has(`${api.name} ${key}`))
          missing.push(`${api.name} ${key}: no error`);
        for (const status of Object.keys(api.operation(method, template).responses)) {
          if (!statuses.includes(Number(status))) untried.push(`${api.name} ${key} ${status}`);
        }
      }
    }
    for (const name of Object.keys(snapApi.doc.webhooks)) {
      if (!snapApi.seen.has(`WEBHOOK ${name}`)) missing.push(`webhook ${name}: never received`);
    }
    assert.deepEqual(missing, []);
    // Documented answers this test does not provoke (a timeout upstream, a rate limit, a crash, …).
    t.diagnostic(`documented statuses not exercised: ${untried.length}`);
  });
});

import assert from 'node:assert/strict';
import { createPrivateKey, createPublicKey, type KeyObject } from 'node:crypto';
import { existsSync, readdirSync, readFileSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { describe, it } from 'node:test';
import { fileURLToPath } from 'node:url';
import {
  bodyDigest,
  callbackHmacStringToSign,
  callbackRsaStringToSign,
  hmacSha256Base64,
  hmacSha512Base64,
  isMoneyValue,
  jakartaDay,
  parseSnapTimestamp,
  rsaSha256SignBase64,
  SERVICE,
  SNAP_CASES,
  serviceStringToSign,
  tokenStringToSign,
  verifyHmacSha256,
  verifyHmacSha512,
  verifyRsaSha256,
} from '../src/index.ts';

// docs/protocol.md is the product's protocol reference. Every worked vector in it is recomputed
// here with this package's code, so the document cannot drift from what the gateway does.
//
// How vectors are marked up in the markdown (invisible on GitHub):
//   <!-- vector: <id> -->                 then a fenced block of `label  value` lines (two or more
//                                         spaces between a label and its value; labels may hold
//                                         single spaces), or of table lines for `timestamps`,
//                                         `money` and `jakarta-day`;
//   <!-- vector: <id> field: <name> -->   then a fenced block whose whole content is one field
//                                         (a PEM key, a pretty-printed body).

const ROOT = fileURLToPath(new URL('../../../', import.meta.url));
const DOCS = join(ROOT, 'docs');
const protocol = readFileSync(join(DOCS, 'protocol.md'), 'utf8');

interface Block {
  id: string;
  /** 1-based line of the marker, for messages. */
  line: number;
  /** Lines of label/value blocks. */
  lines: string[];
  /** Whole-content fields (`field: <name>` blocks). */
  fields: Map<string, string>;
}

const MARKER = /^<!-- vector: ([a-z0-9-]+)(?: field: ([a-z0-9 ()-]+?))? -->$/;
const FENCE = /^```/;

function extractVectors(markdown: string): Map<string, Block> {
  const lines = markdown.split('\n');
  const blocks = new Map<string, Block>();
  for (let i = 0; i < lines.length; i++) {
    const m = MARKER.exec(lines[i] as string);
    if (!m) continue;
    const id = m[1] as string;
    const field = m[2];
    assert.match(lines[i + 1] ?? '', FENCE, `vector ${id} (line ${i + 1}): the marker must be followed by a fence`);
    const content: string[] = [];
    let j = i + 2;
    for (; j < lines.length && lines[j] !== '```'; j++) content.push(lines[j] as string);
    assert.ok(j < lines.length, `vector ${id} (line ${i + 1}): unclosed fence`);
    let block = blocks.get(id);
    if (!block) {
      block = { id, line: i + 1, lines: [], fields: new Map() };
      blocks.set(id, block);
    }
    if (field === undefined) {
      assert.equal(block.lines.length, 0, `vector ${id}: two label/value blocks`);
      block.lines = content.filter((l) => l.trim() !== '');
    } else {
      assert.ok(!block.fields.has(field), `vector ${id}: field ${field} given twice`);
      block.fields.set(field, content.join('\n'));
    }
    i = j;
  }
  return blocks;
}

const LABEL_VALUE = /^(\S+(?: \S+)*?) {2,}(\S.*)$/;

/** The `label  value` lines of a block, each label once. */
function labelsOf(block: Block): Map<string, string> {
  const out = new Map(block.fields);
  for (const line of block.lines) {
    const m = LABEL_VALUE.exec(line);
    assert.ok(m, `vector ${block.id}: not a "label  value" line: ${JSON.stringify(line)}`);
    const [, label, value] = m as unknown as [string, string, string];
    assert.ok(!out.has(label), `vector ${block.id}: label ${label} given twice`);
    out.set(label, value);
  }
  return out;
}

/** The value of a label, which must be present. */
function need(block: Block, values: Map<string, string>, label: string): string {
  const v = values.get(label);
  assert.ok(v !== undefined, `vector ${block.id} (line ${block.line}) lacks "${label}"`);
  return v;
}

/** Columns of a table block: cells separated by two or more spaces. */
const columnsOf = (line: string) => line.trim().split(/ {2,}/);

/**
 * SNAP's Minify(): every whitespace character outside string values removed, nothing else changed
 * (key order, escapes and number forms stay as written).
 */
function minify(json: string): string {
  let out = '';
  let inString = false;
  let escaped = false;
  for (const ch of json) {
    if (inString) {
      out += ch;
      if (escaped) escaped = false;
      else if (ch === '\\') escaped = true;
      else if (ch === '"') inString = false;
    } else if (ch === '"') {
      inString = true;
      out += ch;
    } else if (!' \t\r\n'.includes(ch)) {
      out += ch;
    }
  }
  return out;
}

const vectors = extractVectors(protocol);
const signatures = new Set<string>();
const sentBodies = new Set<string>();

function testKey(): { privateKey: KeyObject; publicKey: KeyObject } {
  const block = vectors.get('test-key');
  assert.ok(block, 'docs/protocol.md has no test-key vector');
  const privatePem = block.fields.get('private key');
  const publicPem = block.fields.get('public key');
  assert.ok(privatePem && publicPem, 'the test key needs a "private key" and a "public key" block');
  const privateKey = createPrivateKey(privatePem);
  const publicKey = createPublicKey(publicPem);
  return { privateKey, publicKey };
}

/** The body a vector signs: `body as sent`, or the empty body of `body length 0`. */
function bodyOf(block: Block, v: Map<string, string>): string {
  const sent = v.get('body as sent');
  if (sent !== undefined) {
    sentBodies.add(sent);
    const written = v.get('body as written');
    if (written !== undefined) {
      assert.equal(minify(written), sent, `vector ${block.id}: "body as sent" is not the minified "body as written"`);
    }
    return sent;
  }
  assert.equal(need(block, v, 'body length'), '0', `vector ${block.id}: a body needs "body as sent"`);
  return '';
}

function checkBodyHash(block: Block, v: Map<string, string>, body: string): void {
  const hash = need(block, v, 'body SHA-256');
  assert.match(hash, /^[0-9a-f]{64}$/, `vector ${block.id}: the body hash is lower-case hex`);
  assert.equal(bodyDigest(body), hash, `vector ${block.id}: body SHA-256`);
  assert.equal(bodyDigest(Buffer.from(body, 'utf8')), hash, `vector ${block.id}: body SHA-256 over the bytes`);
}

function checkCallbackPath(block: Block, v: Map<string, string>): string {
  const path = need(block, v, 'path');
  const url = new URL(need(block, v, 'callback URL'));
  assert.equal(`${url.pathname}${url.search}`, path, `vector ${block.id}: path is the URL's path with its query`);
  return path;
}

function checkCallbackBody(block: Block, body: string): void {
  // Callback bodies are written once, compactly.
  assert.equal(JSON.stringify(JSON.parse(body)), body, `vector ${block.id}: a callback body is compact JSON`);
}

type Checker = (block: Block) => void;

const CHECKERS: Array<[RegExp, Checker]> = [
  [
    /^test-key$/,
    () => {
      const { privateKey, publicKey } = testKey();
      assert.equal(privateKey.asymmetricKeyType, 'rsa');
      assert.equal(privateKey.asymmetricKeyDetails?.modulusLength, 2048);
      const derived = createPublicKey(privateKey).export({ type: 'spki', format: 'pem' }).toString();
      assert.equal(
        derived,
        publicKey.export({ type: 'spki', format: 'pem' }).toString(),
        'the public key is the private key’s',
      );
    },
  ],
  [
    /^token-hmac-/,
    (block) => {
      const v = labelsOf(block);
      const clientKey = need(block, v, 'X-CLIENT-KEY');
      const timestamp = need(block, v, 'X-TIMESTAMP');
      const secret = need(block, v, 'client secret');
      assert.notEqual(parseSnapTimestamp(timestamp), undefined, `vector ${block.id}: X-TIMESTAMP is accepted`);
      const data = tokenStringToSign(clientKey, timestamp);
      assert.equal(data, need(block, v, 'string to sign'), `vector ${block.id}: string to sign`);
      const signature = need(block, v, 'X-SIGNATURE');
      assert.equal(hmacSha256Base64(secret, data), signature, `vector ${block.id}: X-SIGNATURE`);
      assert.equal(verifyHmacSha256(secret, data, signature), true);
      signatures.add(signature);
    },
  ],
  [
    /^(token-rsa|snap-b2b-token-request)$/,
    (block) => {
      const v = labelsOf(block);
      const { privateKey, publicKey } = testKey();
      const timestamp = need(block, v, 'X-TIMESTAMP');
      assert.notEqual(parseSnapTimestamp(timestamp), undefined, `vector ${block.id}: X-TIMESTAMP is accepted`);
      const data = tokenStringToSign(need(block, v, 'X-CLIENT-KEY'), timestamp);
      assert.equal(data, need(block, v, 'string to sign'), `vector ${block.id}: string to sign`);
      const signature = need(block, v, 'X-SIGNATURE');
      assert.equal(rsaSha256SignBase64(privateKey, data), signature, `vector ${block.id}: X-SIGNATURE`);
      assert.equal(verifyRsaSha256(publicKey, data, signature), true);
      signatures.add(signature);
    },
  ],
  [
    /^payment-/,
    (block) => {
      const v = labelsOf(block);
      const method = need(block, v, 'method');
      assert.ok(['POST', 'PUT', 'DELETE'].includes(method), `vector ${block.id}: method`);
      const path = need(block, v, 'path');
      assert.ok(path.startsWith('/api/snap/v1.0/'), `vector ${block.id}: a payment call path`);
      const timestamp = need(block, v, 'X-TIMESTAMP');
      assert.notEqual(parseSnapTimestamp(timestamp), undefined, `vector ${block.id}: X-TIMESTAMP is accepted`);
      const accessToken = need(block, v, 'access token');
      const secret = need(block, v, 'client secret');
      const body = bodyOf(block, v);
      checkBodyHash(block, v, body);
      const data = serviceStringToSign({ method, path, accessToken, rawBody: Buffer.from(body, 'utf8'), timestamp });
      assert.equal(data, need(block, v, 'string to sign'), `vector ${block.id}: string to sign`);
      const signature = need(block, v, 'X-SIGNATURE');
      assert.equal(hmacSha512Base64(secret, data), signature, `vector ${block.id}: X-SIGNATURE`);
      assert.equal(verifyHmacSha512(secret, data, signature), true);
      signatures.add(signature);
    },
  ],
  [
    /^empty-body$/,
    (block) => {
      const v = labelsOf(block);
      checkBodyHash(block, v, bodyOf(block, v));
    },
  ],
  [
    /^callback-hmac-sha512$/,
    (block) => {
      const v = labelsOf(block);
      const path = checkCallbackPath(block, v);
      const timestamp = need(block, v, 'X-TIMESTAMP');
      const partnerId = need(block, v, 'X-PARTNER-ID');
      assert.match(need(block, v, 'X-EXTERNAL-ID'), /^\d{1,36}$/, `vector ${block.id}: X-EXTERNAL-ID`);
      const body = bodyOf(block, v);
      checkCallbackBody(block, body);
      checkBodyHash(block, v, body);
      const data = callbackHmacStringToSign({ path, partnerId, rawBody: body, timestamp });
      assert.equal(data, need(block, v, 'string to sign'), `vector ${block.id}: string to sign`);
      const secret = need(block, v, 'client secret');
      const signature = need(block, v, 'X-SIGNATURE');
      assert.equal(hmacSha512Base64(secret, data), signature, `vector ${block.id}: X-SIGNATURE`);
      assert.equal(verifyHmacSha512(secret, data, signature), true);
      signatures.add(signature);
    },
  ],
  [
    /^callback-rsa-sha256$/,
    (block) => {
      const v = labelsOf(block);
      const { privateKey, publicKey } = testKey();
      const path = checkCallbackPath(block, v);
      const body = bodyOf(block, v);
      checkCallbackBody(block, body);
      checkBodyHash(block, v, body);
      const data = callbackRsaStringToSign({ path, rawBody: body, timestamp: need(block, v, 'X-TIMESTAMP') });
      assert.equal(data, need(block, v, 'string to sign'), `vector ${block.id}: string to sign`);
      const signature = need(block, v, 'X-SIGNATURE');
      assert.equal(rsaSha256SignBase64(privateKey, data), signature, `vector ${block.id}: X-SIGNATURE`);
      assert.equal(verifyRsaSha256(publicKey, data, signature), true);
      signatures.add(signature);
    },
  ],
  [
    /^callback-snap-b2b$/,
    (block) => {
      const v = labelsOf(block);
      const path = checkCallbackPath(block, v);
      const body = bodyOf(block, v);
      checkCallbackBody(block, body);
      checkBodyHash(block, v, body);
      const data = serviceStringToSign({
        method: 'POST',
        path,
        accessToken: need(block, v, 'access token'),
        rawBody: body,
        timestamp: need(block, v, 'X-TIMESTAMP'),
      });
      assert.equal(data, need(block, v, 'string to sign'), `vector ${block.id}: string to sign`);
      const signature = need(block, v, 'X-SIGNATURE');
      assert.equal(
        hmacSha512Base64(need(block, v, 'client secret'), data),
        signature,
        `vector ${block.id}: X-SIGNATURE`,
      );
      signatures.add(signature);
    },
  ],
  [
    /^timestamps$/,
    (block) => {
      for (const line of block.lines) {
        const [input, verdict, instant] = columnsOf(line) as [string, string, string | undefined];
        const ms = parseSnapTimestamp(input);
        if (verdict === 'accepted') {
          assert.notEqual(ms, undefined, `timestamps: ${input} is accepted`);
          assert.equal(new Date(ms as number).toISOString(), instant, `timestamps: the instant of ${input}`);
        } else {
          assert.equal(verdict, 'refused', `timestamps: ${line}`);
          assert.equal(ms, undefined, `timestamps: ${input} is refused`);
        }
      }
    },
  ],
  [
    /^money$/,
    (block) => {
      for (const line of block.lines) {
        const [value, verdict] = columnsOf(line) as [string, string];
        assert.ok(verdict === 'valid' || verdict === 'invalid', `money: ${line}`);
        assert.equal(isMoneyValue(value), verdict === 'valid', `money: ${value} is ${verdict}`);
      }
    },
  ],
  [
    /^jakarta-day$/,
    (block) => {
      for (const line of block.lines) {
        const [instant, day] = columnsOf(line) as [string, string];
        const ms = parseSnapTimestamp(instant);
        assert.notEqual(ms, undefined, `jakarta-day: ${instant}`);
        assert.equal(jakartaDay(ms as number), day, `jakarta-day: the day of ${instant}`);
      }
    },
  ],
];

/** Every vector the document must keep: removing one fails as loudly as breaking one. */
const REQUIRED = [
  'timestamps',
  'money',
  'jakarta-day',
  'token-hmac-jakarta',
  'token-hmac-utc',
  'test-key',
  'token-rsa',
  'payment-generate',
  'payment-delete-va',
  'empty-body',
  'callback-hmac-sha512',
  'callback-rsa-sha256',
  'snap-b2b-token-request',
  'callback-snap-b2b',
];

describe('the worked vectors of docs/protocol.md', () => {
  it('has every required vector', () => {
    assert.deepEqual(
      REQUIRED.filter((id) => !vectors.has(id)),
      [],
    );
  });

  for (const block of vectors.values()) {
    it(`recomputes ${block.id} (line ${block.line})`, () => {
      const checker = CHECKERS.find(([pattern]) => pattern.test(block.id));
      assert.ok(checker, `no check for vector ${block.id}: add one to protocol-vectors.test.ts`);
      checker[1](block);
    });
  }

  it('keeps the canonical payment vector identical to test/vectors/service-signature.json', () => {
    const json = JSON.parse(
      readFileSync(new URL('./vectors/service-signature.json', import.meta.url), 'utf8'),
    ) as Array<{
      name: string;
      body: string;
      signature: string;
    }>;
    const canonical = json.find((x) => x.name.startsWith('docs/protocol.md#payment-calls'));
    assert.ok(canonical);
    const block = vectors.get('payment-generate') as Block;
    const v = labelsOf(block);
    assert.equal(v.get('body as sent'), canonical.body);
    assert.equal(v.get('X-SIGNATURE'), canonical.signature);
  });

  it('shows on the wire (```http blocks) only signatures and bodies the vectors prove', () => {
    // The vectors fill `signatures` and `sentBodies`: run them here too, so this test stands alone.
    for (const block of vectors.values()) CHECKERS.find(([pattern]) => pattern.test(block.id))?.[1](block);
    const http = [...protocol.matchAll(/^```http\n([\s\S]*?)\n```$/gm)].map((m) => m[1] as string);
    assert.ok(http.length >= 2);
    for (const block of http) {
      const [head, body] = block.split('\n\n') as [string, string | undefined];
      const headers = new Map(
        head
          .split('\n')
          .slice(1)
          .map((l) => [l.slice(0, l.indexOf(':')).toLowerCase(), l.slice(l.indexOf(':') + 1).trim()] as const),
      );
      const signature = headers.get('x-signature');
      if (signature !== undefined) assert.ok(signatures.has(signature), `an unproven X-SIGNATURE: ${signature}`);
      if (body !== undefined) assert.ok(sentBodies.has(body), `an unproven body: ${body}`);
      const length = headers.get('content-length');
      if (length !== undefined) assert.equal(Number(length), Buffer.byteLength(body ?? ''), 'Content-Length');
    }
  });
});

// ---------------------------------------------------------------------------------------------
// Response code tables: every row must agree with the case table the gateway builds its answers from.

interface Table {
  header: string[];
  rows: string[][];
}

function tablesOf(markdown: string): Table[] {
  const lines = markdown.split('\n');
  const tables: Table[] = [];
  const cells = (line: string) =>
    line
      .trim()
      .replace(/^\||\|$/g, '')
      .split(/(?<!\\)\|/)
      .map((c) => c.trim());
  let inFence = false;
  for (let i = 0; i < lines.length; i++) {
    const line = lines[i] as string;
    if (FENCE.test(line)) inFence = !inFence;
    if (inFence || !line.startsWith('|') || !/^\|[-| :]+\|$/.test(lines[i + 1] ?? '')) continue;
    const table: Table = { header: cells(line).map((c) => c.replaceAll('`', '')), rows: [] };
    for (i += 2; i < lines.length && (lines[i] as string).startsWith('|'); i++)
      table.rows.push(cells(lines[i] as string));
    tables.push(table);
  }
  return tables;
}

const unquote = (s: string) => s.replaceAll('`', '').trim();
const CODE = /^(\d{3})(\d{2}|xx)(\d{2})$/;
const SERVICE_CODES = new Set<string>(Object.values(SERVICE));

function checkCode(code: string, http: string, message: string, where: string): void {
  const m = CODE.exec(code);
  assert.ok(m, `${where}: ${code} is not a responseCode`);
  const [, status, service, caseCode] = m as unknown as [string, string, string, string];
  assert.equal(http, status, `${where}: ${code} answers HTTP ${status}`);
  if (service !== 'xx') assert.ok(SERVICE_CODES.has(service) || service === '00', `${where}: service code ${service}`);
  if (status === '200') {
    assert.equal(caseCode, '00', `${where}: success is case 00`);
    assert.ok(['Successful', 'Success'].includes(message), `${where}: ${code} ${message}`);
    return;
  }
  if (code === '4040000') {
    assert.equal(message, 'Not Found', where);
    return;
  }
  const known = Object.values(SNAP_CASES).filter((c) => String(c.httpStatus) === status && c.caseCode === caseCode);
  assert.ok(known.length > 0, `${where}: no SNAP case ${status}/${caseCode} (${code})`);
  assert.ok(
    known.some(
      (c) => message === c.message || message.startsWith(`${c.message} {`) || message.startsWith(`${c.message} [`),
    ),
    `${where}: ${code} is "${known.map((c) => c.message).join('" or "')}", not "${message}"`,
  );
}

describe('the response code tables of docs/protocol.md', () => {
  const tables = tablesOf(protocol);

  it('agree with the SNAP case table on HTTP status, service code and message', () => {
    let checked = 0;
    for (const table of tables) {
      const codeAt = table.header.indexOf('responseCode');
      const httpAt = table.header.indexOf('HTTP');
      const messageAt = table.header.indexOf('responseMessage');
      if (codeAt < 0 || httpAt < 0 || messageAt < 0) continue;
      for (const row of table.rows) {
        const codeCell = row[codeAt] ?? '';
        if (codeCell === '') continue;
        const codes = codeCell.split(' / ').map(unquote);
        const messages = (row[messageAt] ?? '').split(' / ').map(unquote);
        assert.equal(codes.length, messages.length, `one message per code: ${row.join(' | ')}`);
        codes.forEach((code, k) => {
          checkCode(code, unquote(row[httpAt] ?? ''), messages[k] as string, row.join(' | '));
          checked++;
        });
      }
    }
    assert.ok(checked >= 80, `only ${checked} codes checked: did the tables lose their columns?`);
  });

  it('lists every SNAP case, with its HTTP status and message', () => {
    const table = tables.find((t) => t.header[0] === 'HTTP' && t.header[1] === 'Case');
    assert.ok(table, 'the case code table');
    const listed = new Set(table.rows.map((r) => `${unquote(r[0] ?? '')}/${unquote(r[1] ?? '')}`));
    for (const [name, c] of Object.entries(SNAP_CASES)) {
      assert.ok(listed.has(`${c.httpStatus}/${c.caseCode}`), `case ${name} (${c.httpStatus} ${c.caseCode}) is missing`);
    }
    for (const row of table.rows) {
      const [http, caseCode, message] = row.map(unquote) as [string, string, string];
      if (http === '200') continue;
      const c = Object.values(SNAP_CASES).find((x) => String(x.httpStatus) === http && x.caseCode === caseCode);
      assert.ok(c, `no SNAP case ${http}/${caseCode}`);
      assert.ok(message.startsWith(c.message), `${http}/${caseCode}: "${message}" is not "${c.message}"`);
    }
  });

  it('lists every service code', () => {
    const table = tables.find((t) => t.header[0] === 'Service code');
    assert.ok(table, 'the service code table');
    const listed = new Set(table.rows.flatMap((r) => [...(r[0] ?? '').matchAll(/`(\d{2})`/g)].map((m) => m[1])));
    for (const [name, code] of Object.entries(SERVICE)) assert.ok(listed.has(code), `service ${name} (${code})`);
  });
});

// ---------------------------------------------------------------------------------------------
// Anchors: code comments and the other docs link to fixed headings of docs/protocol.md.

/** GitHub's heading anchors of a markdown text (code fences skipped, duplicates numbered). */
function anchorsOf(markdown: string): Set<string> {
  const anchors = new Set<string>();
  const seen = new Map<string, number>();
  let inFence = false;
  for (const line of markdown.split('\n')) {
    if (FENCE.test(line)) inFence = !inFence;
    const m = inFence ? null : /^#{1,6} (.+)$/.exec(line);
    if (!m) continue;
    const base = (m[1] as string)
      .trim()
      .toLowerCase()
      .replace(/[^\p{L}\p{N}\s_-]/gu, '')
      .replace(/\s/g, '-');
    const n = seen.get(base) ?? 0;
    seen.set(base, n + 1);
    anchors.add(n === 0 ? base : `${base}-${n}`);
  }
  return anchors;
}

function walk(dir: string, accept: (file: string) => boolean, out: string[] = []): string[] {
  if (!existsSync(dir)) return out;
  for (const name of readdirSync(dir)) {
    if (name === 'node_modules' || name === 'dist' || name === 'data' || name.startsWith('.')) continue;
    const p = join(dir, name);
    if (statSync(p).isDirectory()) walk(p, accept, out);
    else if (accept(p)) out.push(p);
  }
  return out;
}

describe('the anchors of docs/protocol.md', () => {
  const anchors = anchorsOf(protocol);

  it('has every anchor the code links to', () => {
    for (const anchor of [
      'conventions',
      'access-token',
      'payment-calls',
      'idempotency',
      'qris',
      'virtual-account',
      'transaction-statuses',
      'callbacks',
      'response-codes',
      'admin-api',
      'providers',
    ]) {
      assert.ok(anchors.has(anchor), `#${anchor} is missing`);
    }
  });

  it('resolves every link to a protocol.md anchor in the sources and docs', () => {
    const files = [
      ...['packages', 'examples'].flatMap((d) => walk(join(ROOT, d), (f) => /\.(ts|mts|js|mjs|md)$/.test(f))),
      ...walk(DOCS, (f) => f.endsWith('.md')),
      join(ROOT, 'README.md'),
    ];
    const missing: string[] = [];
    for (const file of files) {
      for (const m of readFileSync(file, 'utf8').matchAll(/protocol\.md#([A-Za-z0-9_-]+)/g)) {
        if (!anchors.has(m[1] as string)) missing.push(`${file.slice(ROOT.length)}: #${m[1]}`);
      }
    }
    assert.deepEqual(missing, []);
  });

  it('resolves every link between the docs', () => {
    const docs = new Map(
      readdirSync(DOCS)
        .filter((f) => f.endsWith('.md'))
        .map((f) => [f, readFileSync(join(DOCS, f), 'utf8')] as const),
    );
    const broken: string[] = [];
    for (const [name, text] of docs) {
      for (const m of text.matchAll(/\]\(([a-z0-9-]*\.md)?#([A-Za-z0-9_-]+)\)/g)) {
        const target = m[1] ?? name;
        const targetText = docs.get(target);
        if (targetText === undefined || !anchorsOf(targetText).has(m[2] as string)) broken.push(`${name} → ${m[0]}`);
      }
      for (const m of text.matchAll(/\]\(([a-z0-9-]+\.md)\)/g)) {
        if (!docs.has(m[1] as string)) broken.push(`${name} → ${m[0]}`);
      }
    }
    assert.deepEqual(broken, []);
  });

  it('stands alone: it names no internal team document', () => {
    for (const name of ['protocol.md', 'admin-api.md']) {
      const file = join(DOCS, name);
      if (!existsSync(file)) continue;
      const text = readFileSync(file, 'utf8');
      assert.doesNotMatch(text, /\bSPEC\b|§/, name);
      assert.doesNotMatch(text, /STYLE\.md|STACK\.md|\/work\/shared|source document/i, name);
    }
  });
});

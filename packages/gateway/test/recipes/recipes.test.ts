// docs/recipes: the PHP, Python, Java and Go recipes, run as the programs they are, against fixed
// vectors and against a live gateway. A missing toolchain skips with a message, except in CI
// (CI set), where it fails: CI installs every toolchain (.ci/run) and must never skip silently.
import assert from 'node:assert/strict';
import { spawn, spawnSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, it, type TestContext } from 'node:test';
import { fileURLToPath } from 'node:url';
import { actionOf, verifyCallback } from '@snapgate/merchant-sdk';
import {
  B2B_TOKEN_PATH,
  bodyDigest,
  callbackHmacStringToSign,
  formatJakartaTimestamp,
  hmacSha256Base64,
  hmacSha512Base64,
  parseSnapTimestamp,
  SERVICE,
  serviceStringToSign,
  successCode,
  type TransactionStatus,
  tokenStringToSign,
} from '@snapgate/snap';
import { startGateway, type TestGateway } from '../helpers/gateway.ts';
import { type Receiver, startReceiver, waitFor } from '../helpers/receiver.ts';
import { newExternalId, send } from '../helpers/snap.ts';

const RECIPES = fileURLToPath(new URL('../../../../docs/recipes/', import.meta.url));
const SERVICE_VECTORS = fileURLToPath(new URL('../../../snap/test/vectors/service-signature.json', import.meta.url));
const QRIS_GENERATE = '/api/snap/v1.0/qr/qr-mpm-generate';
const CI = Boolean(process.env.CI) && !/^(false|0)$/i.test(process.env.CI ?? '');
const WORK = mkdtempSync(join(tmpdir(), 'snapgate-recipes-'));
let files = 0;

/** A file holding exactly these bytes. */
function bytesFile(content: string | Uint8Array): string {
  const file = join(WORK, `body-${++files}`);
  writeFileSync(file, content);
  return file;
}

// --- running a recipe -------------------------------------------------------------------------

interface Run {
  status: number | null;
  stdout: Buffer;
  out: string;
  stderr: string;
}

// The recipes read the merchant's settings from SNAPGATE_*: none leaks in from this process.
const baseEnv: Record<string, string> = {};
for (const [k, v] of Object.entries(process.env)) if (v !== undefined && !k.startsWith('SNAPGATE_')) baseEnv[k] = v;
// A cache kept between runs makes Go builds fast; GOPATH only matters when HOME is unset.
baseEnv.GOCACHE ??= join(tmpdir(), 'snapgate-recipes-gocache');
if (!baseEnv.HOME && !baseEnv.GOPATH) baseEnv.GOPATH = join(tmpdir(), 'snapgate-recipes-gopath');

function exec(argv: readonly string[], env: Record<string, string> = {}, input?: string | Uint8Array): Promise<Run> {
  return new Promise((resolve, reject) => {
    const child = spawn(argv[0] as string, argv.slice(1), {
      cwd: WORK,
      env: { ...baseEnv, ...env },
      stdio: ['pipe', 'pipe', 'pipe'],
    });
    const out: Buffer[] = [];
    let stderr = '';
    child.stdout.on('data', (c: Buffer) => out.push(c));
    child.stderr.on('data', (c: Buffer) => {
      stderr += String(c);
    });
    const timer = setTimeout(() => child.kill('SIGKILL'), 45_000);
    child.on('error', reject);
    child.on('close', (status) => {
      clearTimeout(timer);
      const stdout = Buffer.concat(out);
      resolve({ status, stdout, out: stdout.toString('utf8'), stderr });
    });
    // A recipe that does not read stdin may exit before it is closed: that EPIPE is no failure.
    child.stdin.on('error', () => {});
    if (input === undefined) child.stdin.end();
    else child.stdin.end(input);
  });
}

interface Language {
  name: string;
  /** The toolchain, as the skip message names it, and how to install it. */
  tool: string;
  install: string;
  probes: string[][];
  /** The command docs/recipes/README.md shows, without the recipe's arguments. */
  documented: string[];
  /** Compiles when there is something to compile; the fast command to run the recipe. */
  prepare(dir: string): Promise<string[]>;
}

/** fn over items, a few at a time (a JVM takes half a second to start), results in order. */
async function inParallel<T, R>(items: readonly T[], fn: (item: T) => Promise<R>, width = 3): Promise<R[]> {
  const results: R[] = new Array(items.length);
  let next = 0;
  const worker = async () => {
    while (next < items.length) {
      const i = next++;
      results[i] = await fn(items[i] as T);
    }
  };
  await Promise.all(Array.from({ length: Math.min(width, items.length) }, worker));
  return results;
}

async function mustRun(argv: string[]): Promise<void> {
  const r = await exec(argv);
  assert.equal(r.status, 0, `${argv.join(' ')}\n${r.stderr}${r.out}`);
}

const LANGUAGES: Language[] = [
  {
    name: 'php',
    tool: 'php',
    install: 'apt-get install php-cli',
    probes: [['php', '-v']],
    documented: ['php', join(RECIPES, 'php/snapgate_recipe.php')],
    prepare: async () => ['php', join(RECIPES, 'php/snapgate_recipe.php')],
  },
  {
    name: 'python',
    tool: 'python3',
    install: 'apt-get install python3',
    probes: [['python3', '--version']],
    documented: ['python3', join(RECIPES, 'python/snapgate_recipe.py')],
    prepare: async () => ['python3', join(RECIPES, 'python/snapgate_recipe.py')],
  },
  {
    name: 'java',
    tool: 'java and javac (JDK 17+)',
    install: 'apt-get install openjdk-17-jdk-headless',
    probes: [
      ['java', '-version'],
      ['javac', '-version'],
    ],
    documented: ['java', join(RECIPES, 'java/SnapgateRecipe.java')],
    prepare: async (dir) => {
      // Compiled once (the documented single-file launch compiles on every run, ~1 s each).
      await mustRun(['javac', '-d', dir, join(RECIPES, 'java/SnapgateRecipe.java')]);
      return ['java', '-cp', dir, 'SnapgateRecipe'];
    },
  },
  {
    name: 'go',
    tool: 'go',
    install: 'apt-get install golang-go',
    probes: [['go', 'version']],
    documented: ['go', 'run', join(RECIPES, 'go/snapgate_recipe.go')],
    prepare: async (dir) => {
      const binary = join(dir, 'snapgate_recipe');
      await mustRun(['go', 'build', '-o', binary, join(RECIPES, 'go/snapgate_recipe.go')]);
      return [binary];
    },
  },
];

const available = (l: Language) => l.probes.every(([cmd, ...args]) => spawnSync(cmd as string, args).status === 0);

/** The recipe's command, or undefined after skipping the test (never in CI: there it fails). */
function recipeOf(t: TestContext, l: Language, prepared: Map<string, Promise<string[]>>) {
  if (!available(l)) {
    const message = `${l.tool} not installed (${l.install}): the ${l.name} recipe is not run`;
    if (CI) assert.fail(`${message}; CI must run every recipe, never skip it`);
    t.skip(message);
    return undefined;
  }
  let p = prepared.get(l.name);
  if (!p) {
    const dir = join(WORK, l.name);
    mkdirSync(dir, { recursive: true });
    p = l.prepare(dir);
    prepared.set(l.name, p);
  }
  return p;
}

// --- the vectors ------------------------------------------------------------------------------

interface PaymentVector {
  name: string;
  secret: string;
  method: string;
  path: string;
  accessToken: string;
  timestamp: string;
  body: string | Uint8Array;
  signature: string;
}

const fixed: PaymentVector[] = (JSON.parse(readFileSync(SERVICE_VECTORS, 'utf8')) as PaymentVector[]).map((v) => ({
  ...v,
  name: `packages/snap/test/vectors: ${v.name}`,
}));

// The worked example of docs/callbacks.md (checked against @snapgate/snap in packages/snap/test).
const DOC = {
  secret: 'merchant-secret',
  partnerId: 'P1',
  path: '/webhook/payment-qr-notification',
  timestamp: '2026-11-23T10:00:05+07:00',
  standard:
    '{"originalReferenceNo":"261123000000000001","originalPartnerReferenceNo":"INV/2026/001","latestTransactionStatus":"00","amount":{"value":"25000.00","currency":"IDR"},"additionalInfo":{"payerIssuer":"93600009","payerName":"Siti Ñ","payerRefId":"123456789012","billNumber":123456789012,"transactionDate":"2026-11-23T10:00:00+07:00","feeAmount":{"value":"0.00","currency":"IDR"}}}',
  standardSignature: '4pQl62VjOmIxc8AsRG8z+pIb0WkhARO2hiCkZo/bAU77NSV8vMNgQBAaAE9hucJSmdov31SWYzGdNvdTc7/Hzw==',
  php: '{"originalReferenceNo":"261123000000000001","originalPartnerReferenceNo":"INV\\/2026\\/001","latestTransactionStatus":"00","amount":{"value":"25000.00","currency":"IDR"},"additionalInfo":{"payerIssuer":"93600009","payerName":"Siti \\u00d1","payerRefId":"123456789012","billNumber":123456789012,"transactionDate":"2026-11-23T10:00:00+07:00","feeAmount":{"value":"0.00","currency":"IDR"}}}',
  phpSignature: 'GMguo9U9TRSYtSTc1t0yyyvpwD/dA3UIDJhHIFyjT0zQGAxsSohiKUp/QBUT3Edpnmv+8DPCkPufXCpFJo0JLQ==',
};

// Published in docs/protocol.md (payment, token and callback test vectors).
const PROTOCOL = {
  clientKey: '3f2c8a4e-5b1d-4c7a-9e0f-1a2b3c4d5e6f',
  secret: 'q3v9Zx1Lw8Tt0bYcR5nK2mP7sD4fG6hJ8kL0aQ2eW4E',
  jwt: 'eyJhbGciOiJIUzI1NiIsInR5cCI6IkpXVCJ9.eyJzdWIiOiIzZjJjOGE0ZS01YjFkLTRjN2EtOWUwZi0xYTJiM2M0ZDVlNmYiLCJpYXQiOjE3OTU0MDI4MDAsImV4cCI6MTc5NTQwMzcwMCwianRpIjoiMGIxYzJkM2UtNGY1YS00YjZjLThkN2UtOWYwYTFiMmMzZDRlIiwic3YiOjF9.xqG0ZRBpm07WEFcznwb7eUe_q7yRIH1ic0Qaq9i3tso',
  vaPath: '/shop/webhook/payment-va-notification?tenant=7',
  vaTimestamp: '2026-11-23T10:15:31+07:00',
  vaBody:
    '{"originalReferenceNo":"261123482913770215","originalPartnerReferenceNo":"INV-2026-0003","latestTransactionStatus":"00","amount":{"value":"150000.00","currency":"IDR"},"additionalInfo":{"payerIssuer":"014","payerName":"Budi Santoso","payerRefId":"20261123000042","billNumber":482913770215,"transactionDate":"2026-11-23T10:15:30+07:00","feeAmount":{"value":"0.00","currency":"IDR"}}}',
  generateAsWritten:
    '{\n  "partnerReferenceNo": "REF1",\n  "amount": {\n    "value": "10000.00",\n    "currency": "IDR"\n  }\n}\n',
};

const computed = (v: Omit<PaymentVector, 'signature'>): PaymentVector => ({
  ...v,
  signature: hmacSha512Base64(v.secret, serviceStringToSign({ ...v, rawBody: v.body })),
});

const PAYMENT_VECTORS: PaymentVector[] = [
  ...fixed,
  {
    name: 'docs/protocol.md payment-delete-va: a DELETE, a JWT, a leading space in the body',
    secret: PROTOCOL.secret,
    method: 'DELETE',
    path: '/api/snap/v1.0/transfer-va/delete-va',
    accessToken: PROTOCOL.jwt,
    timestamp: '2026-11-23T10:00:01+07:00',
    body: '{"virtualAccountNo":" 0140001000000000001","trxId":"INV-2026-0003"}',
    signature: '4RNx5ko7IS6F3YbC57hScl0iWxhDYAVmEkqOZ7NlfeOiFfsh7p8k11uq/GSgLZOZLTnmEI2F5vB+mHnqdKadSQ==',
  },
  {
    name: 'docs/protocol.md callback-snap-b2b: the payment string-to-sign over a callback',
    secret: PROTOCOL.secret,
    method: 'POST',
    path: PROTOCOL.vaPath,
    accessToken: 'Zm9yLXRoZS1nYXRld2F5LWZyb20tdG9rby1zYXR1',
    timestamp: PROTOCOL.vaTimestamp,
    body: PROTOCOL.vaBody,
    signature: '0pipsm+/PoMByaqUxN3KOvKHVfiALoQTQ2T/UUL5JHOlH3wcujn2UjnOr+FshorXfC6mand0Sg6QFKQ38W6TFA==',
  },
  {
    name: 'docs/callbacks.md snap-b2b: the same string-to-sign, bound to a token',
    secret: DOC.secret,
    method: 'POST',
    path: DOC.path,
    accessToken: 'tok-4f1c9a',
    timestamp: DOC.timestamp,
    body: DOC.standard,
    signature: 'b5y7GE91HjWGnYyWMaRwkTts+Vn95l9m0WGMltnau1tOR0GhUZDwJSiFfS1wFiFmtNOQdhPUlJEQsHzlIPHFag==',
  },
  computed({
    name: 'pretty-printed, non-ASCII, a trailing newline, a query, a lowercase method: the bytes as they are',
    secret: 's3cr3t-with:colons|and-pipes',
    method: 'post',
    path: '/api/snap/v1.0/qr/qr-mpm-query?trace=1&x=%2F',
    accessToken: 'eyJhbGciOiJIUzI1NiJ9.e30.sig',
    timestamp: '2026-11-23T03:00:05.123Z',
    body: `${JSON.stringify({ originalPartnerReferenceNo: 'INV/2026/Ñ-日本', note: 'a\\b "q" 😀' }, null, 2)}\n`,
  }),
  computed({
    name: 'an empty body hashes the empty string',
    secret: 'secret',
    method: 'DELETE',
    path: '/api/snap/v1.0/transfer-va/delete-va',
    accessToken: 'tok123',
    timestamp: '2026-11-23T10:00:00+07:00',
    body: '',
  }),
  computed({
    name: 'bytes that are not UTF-8 are hashed as bytes, never decoded first',
    secret: 'secret',
    method: 'PUT',
    path: '/api/snap/v1.0/transfer-va/update-va',
    accessToken: 'tok123',
    timestamp: '2026-11-23T10:00:00+0700',
    body: Uint8Array.from([0x7b, 0x22, 0xff, 0xfe, 0xc3, 0x28, 0x22, 0x7d]),
  }),
];

const TOKEN_VECTORS = [
  {
    name: 'docs/protocol.md token-hmac-jakarta',
    clientKey: PROTOCOL.clientKey,
    secret: PROTOCOL.secret,
    timestamp: '2026-11-23T10:00:00+07:00',
    signature: '+/B+gEnskdAhgjYIvltfCMsbjdDPw1wb2+uyPcXt8zU=',
  },
  {
    name: 'docs/protocol.md token-hmac-utc: the same instant, another signature',
    clientKey: PROTOCOL.clientKey,
    secret: PROTOCOL.secret,
    timestamp: '2026-11-23T03:00:00.000Z',
    signature: 'FZjm2KeBEOUADroYQdAOr0mSKuzjsohY/TmkQi8NGrM=',
  },
  ...[{ clientKey: 'sgck_8f0a1b2c', secret: 'a-longer/secret+with=chars', timestamp: '2026-11-23T03:00:05.123Z' }].map(
    (v) => ({
      ...v,
      name: 'computed',
      signature: hmacSha256Base64(v.secret, tokenStringToSign(v.clientKey, v.timestamp)),
    }),
  ),
];

/** SNAP's Minify: whitespace between tokens goes, everything else (escapes, spaces in strings) stays. */
const MINIFY_VECTORS = [
  {
    name: 'docs/protocol.md payment-generate: the body as written, then as sent',
    input: PROTOCOL.generateAsWritten,
    output: '{"partnerReferenceNo":"REF1","amount":{"value":"10000.00","currency":"IDR"}}',
  },
  {
    name: 'spaces, escaped quotes and backslashes inside strings, \\/ and \\u escapes, number forms',
    input: `{ "virtualAccountNo" : " 0140001000000000001",\r\n\t${String.raw`"note": "a \" b \\ ", "x": "\/ é \u00e9" , "n": [ 1 , 2.50 , -0 ] }`}\n`,
    output: String.raw`{"virtualAccountNo":" 0140001000000000001","note":"a \" b \\ ","x":"\/ é \u00e9","n":[1,2.50,-0]}`,
  },
  { name: 'the docs/callbacks.md php bytes are minified already', input: DOC.php, output: DOC.php },
];

interface CallbackVector {
  name: string;
  secret: string;
  /** The merchant's own partner ID (SNAPGATE_PARTNER_ID). */
  partnerId: string;
  method?: string;
  path: string;
  timestamp: string;
  signature: string;
  xPartnerId: string;
  body: string | Uint8Array;
  now: string;
  viaStdin?: boolean;
}

const signCallback = (secret: string, path: string, partnerId: string, body: string | Uint8Array, timestamp: string) =>
  hmacSha512Base64(secret, callbackHmacStringToSign({ path, partnerId, rawBody: body, timestamp }));

const docStandard: CallbackVector = {
  name: 'docs/callbacks.md hmac-sha512, standard bytes',
  secret: DOC.secret,
  partnerId: DOC.partnerId,
  path: DOC.path,
  timestamp: DOC.timestamp,
  signature: DOC.standardSignature,
  xPartnerId: DOC.partnerId,
  body: DOC.standard,
  now: '2026-11-23T10:00:10+07:00',
};

function callbackVector(
  name: string,
  o: { path: string; timestamp: string; body: string; now?: string; partnerId?: string },
): CallbackVector {
  const partnerId = o.partnerId ?? 'PARTNER-7';
  return {
    name,
    secret: 'another-secret',
    partnerId,
    path: o.path,
    timestamp: o.timestamp,
    signature: signCallback('another-secret', o.path, partnerId, o.body, o.timestamp),
    xPartnerId: partnerId,
    body: o.body,
    now: o.now ?? o.timestamp,
  };
}

const notification = (status: string, partnerRef: string, value: string) =>
  JSON.stringify({
    originalReferenceNo: '261123000000000042',
    originalPartnerReferenceNo: partnerRef,
    latestTransactionStatus: status,
    amount: { value, currency: 'IDR' },
    additionalInfo: { payerName: 'Ñuñez 日本 😀' },
  });

const VALID_CALLBACKS: CallbackVector[] = [
  docStandard,
  {
    name: 'docs/protocol.md callback-hmac-sha512: a VA callback under a prefix, with a query',
    secret: PROTOCOL.secret,
    partnerId: 'TOKO-SATU',
    path: PROTOCOL.vaPath,
    timestamp: PROTOCOL.vaTimestamp,
    signature: '4KQVZCWCoJGvou3ZMSXlOvK5fZXHV6D5DlfLukPngsm0PojFLyQz5aVBHWMjYfXJOajN1qdjrV+pEQ+T9FljIQ==',
    xPartnerId: 'TOKO-SATU',
    body: PROTOCOL.vaBody,
    now: '2026-11-23T10:15:32+07:00',
  },
  {
    ...docStandard,
    name: 'docs/callbacks.md hmac-sha512, the bytes PHP json_encode writes (callbackJson: php)',
    body: DOC.php,
    signature: DOC.phpSignature,
  },
  { ...docStandard, name: 'the body on stdin', viaStdin: true },
  callbackVector('a prefixed path with a query, a Z timestamp with a fraction, status 06, non-ASCII references', {
    path: '/shop/webhook/payment-qr-notification?store=7&x=%2F',
    timestamp: '2026-11-23T03:00:05.250Z',
    body: notification('06', 'INV/2026/Ñ-日本', '1.00'),
  }),
  callbackVector('a +0700 timestamp, status 03, judged exactly 300 s later', {
    path: '/webhook/payment-va-notification',
    timestamp: '2026-11-23T10:00:05+0700',
    body: notification('03', 'VA-1', '150000.00'),
    now: '2026-11-23T10:05:05+07:00',
  }),
  callbackVector('a timestamp from another zone, 300 s ahead of now, status 04', {
    path: '/cb',
    timestamp: '2026-11-22T22:05:05-05:00',
    body: notification('04', 'R-4', '99999999999.99'),
    now: '2026-11-23T10:00:05+07:00',
  }),
];

/** One byte of the body changed: 25000.00 becomes 95000.00. */
function oneByteChanged(body: string | Uint8Array): Buffer {
  const b = Buffer.from(body);
  const at = b.indexOf('25000.00');
  assert.ok(at >= 0);
  b[at] = 0x39;
  return b;
}

const REFUSED: { vector: CallbackVector; reason: RegExp; sdk?: false }[] = [
  {
    vector: { ...docStandard, name: 'one byte of the body changed', body: oneByteChanged(DOC.standard) },
    reason: /Invalid Signature/,
  },
  {
    vector: { ...docStandard, name: 'the body with a newline appended', body: `${DOC.standard}\n` },
    reason: /Invalid Signature/,
  },
  {
    vector: {
      ...docStandard,
      name: 'the PHP bytes re-serialised (JSON.stringify(JSON.parse(body))) under their signature',
      body: JSON.stringify(JSON.parse(DOC.php)),
      signature: DOC.phpSignature,
    },
    reason: /Invalid Signature/,
  },
  { vector: { ...docStandard, name: 'the wrong secret', secret: 'merchant-secret-2' }, reason: /Invalid Signature/ },
  {
    vector: { ...docStandard, name: 'stale: 301 s old', now: '2026-11-23T10:05:06+07:00' },
    reason: /Timestamp Out Of Range/,
  },
  {
    vector: { ...docStandard, name: 'from the future: 301 s ahead', now: '2026-11-23T09:55:04+07:00' },
    reason: /Timestamp Out Of Range/,
  },
  { vector: { ...docStandard, name: 'another partner’s callback', partnerId: 'P2' }, reason: /Unknown Partner/ },
  {
    vector: { ...docStandard, name: 'X-PARTNER-ID changed (it is signed)', partnerId: 'P2', xPartnerId: 'P2' },
    reason: /Invalid Signature/,
  },
  {
    vector: { ...docStandard, name: 'another path (it is signed)', path: '/webhook/payment-va-notification' },
    reason: /Invalid Signature/,
  },
  {
    vector: {
      ...docStandard,
      name: 'X-TIMESTAMP changed by one second (it is signed)',
      timestamp: '2026-11-23T10:00:06+07:00',
    },
    reason: /Invalid Signature/,
  },
  {
    vector: { ...docStandard, name: 'a signature that is not base64', signature: 'not base64!' },
    reason: /Invalid Signature/,
  },
  {
    vector: { ...docStandard, name: 'a truncated signature', signature: DOC.standardSignature.slice(0, -4) },
    reason: /Invalid Signature/,
  },
  {
    vector: callbackVector('a date that does not exist, correctly signed', {
      path: DOC.path,
      timestamp: '2026-02-30T10:00:05+07:00',
      body: DOC.standard,
      now: '2026-02-28T10:00:05+07:00',
    }),
    reason: /invalid X-TIMESTAMP/,
  },
  {
    vector: callbackVector('a timestamp with a trailing newline, correctly signed', {
      path: DOC.path,
      timestamp: `${DOC.timestamp}\n`,
      body: DOC.standard,
      now: DOC.timestamp,
    }),
    reason: /invalid X-TIMESTAMP/,
  },
  {
    vector: callbackVector('a timestamp without a zone, correctly signed', {
      path: DOC.path,
      timestamp: '2026-11-23T10:00:05',
      body: DOC.standard,
      now: DOC.timestamp,
    }),
    reason: /invalid X-TIMESTAMP/,
  },
  { vector: { ...docStandard, name: 'a GET', method: 'GET' }, reason: /method not allowed/ },
  {
    vector: callbackVector('a correctly signed body that is not a notification', {
      path: DOC.path,
      timestamp: DOC.timestamp,
      body: '{"latestTransactionStatus":"00"}',
    }),
    reason: /refused: /,
  },
  {
    vector: callbackVector('a correctly signed notification with an unknown status', {
      path: DOC.path,
      timestamp: DOC.timestamp,
      body: notification('99', 'X', '1.00'),
    }),
    reason: /refused: /,
  },
];

function verifyArgs(v: CallbackVector): { args: string[]; env: Record<string, string>; input?: Uint8Array | string } {
  const args = [
    'verify-callback',
    '--path',
    v.path,
    '--x-timestamp',
    v.timestamp,
    '--x-signature',
    v.signature,
    '--x-partner-id',
    v.xPartnerId,
    '--body-file',
    v.viaStdin ? '-' : bytesFile(v.body),
    '--now',
    v.now,
  ];
  if (v.method) args.push('--method', v.method);
  return {
    args,
    env: { SNAPGATE_CLIENT_SECRET: v.secret, SNAPGATE_PARTNER_ID: v.partnerId },
    ...(v.viaStdin ? { input: v.body } : {}),
  };
}

/** What every recipe prints for a valid callback, from the body as the SDK reads it. */
function expectedVerifyOutput(body: string | Uint8Array): string {
  const n = JSON.parse(Buffer.from(body).toString('utf8'));
  return [
    'valid',
    `latestTransactionStatus=${n.latestTransactionStatus}`,
    `action=${actionOf(n.latestTransactionStatus as TransactionStatus)}`,
    `originalReferenceNo=${n.originalReferenceNo}`,
    `originalPartnerReferenceNo=${n.originalPartnerReferenceNo}`,
    `amount=${n.amount.value} ${n.amount.currency}`,
    '',
  ].join('\n');
}

/** The merchant SDK's own verdict on a vector: the recipes must agree with it. */
function sdkAccepts(v: CallbackVector): boolean {
  try {
    verifyCallback(
      {
        method: v.method ?? 'POST',
        path: v.path,
        rawBody: v.body,
        headers: { 'x-timestamp': v.timestamp, 'x-signature': v.signature, 'x-partner-id': v.xPartnerId },
      },
      { clientSecret: v.secret, partnerId: v.partnerId, now: parseSnapTimestamp(v.now) as number },
    );
    return true;
  } catch {
    return false;
  }
}

describe('the vectors agree with @snapgate/snap and the merchant SDK', () => {
  it('every valid callback vector is accepted by verifyCallback, every refused one is refused', () => {
    for (const v of VALID_CALLBACKS) assert.equal(sdkAccepts(v), true, v.name);
    for (const { vector } of REFUSED) assert.equal(sdkAccepts(vector), false, vector.name);
  });
  it('the documented payment and token signatures are what @snapgate/snap computes', () => {
    for (const v of PAYMENT_VECTORS) {
      assert.equal(hmacSha512Base64(v.secret, serviceStringToSign({ ...v, rawBody: v.body })), v.signature, v.name);
    }
    for (const v of TOKEN_VECTORS) {
      assert.equal(hmacSha256Base64(v.secret, tokenStringToSign(v.clientKey, v.timestamp)), v.signature, v.name);
    }
    assert.equal(bodyDigest(DOC.standard), 'ccbae50ec80324e9049d1ddb63880e2f3b359fa599a824d7145df229556552e9');
    assert.equal(bodyDigest(PROTOCOL.vaBody), '3fe88df1cd79a7288f889e40f35f52dbb2734abe2d2a9cc4619805ba089d8de6');
  });
  it('minifying keeps the JSON value', () => {
    for (const v of MINIFY_VECTORS) assert.deepEqual(JSON.parse(v.output), JSON.parse(v.input), v.name);
  });
});

// --- the recipes --------------------------------------------------------------------------------

const FAST = { SNAPGATE_RETRY_SCHEDULE: '0s,50ms,50ms,50ms', SNAPGATE_RATE_LIMIT: 'off' };
const prepared = new Map<string, Promise<string[]>>();
let gw: TestGateway;
let receiver: Receiver;

/** The gateway's error log lines, to explain an unexpected answer. */
const gatewayErrors = () =>
  gw.logs
    .filter((line) => /"level":(50|60)/.test(line))
    .slice(-3)
    .join('');

before(async () => {
  receiver = await startReceiver();
  gw = await startGateway({ dispatch: true, env: FAST });
});
after(async () => {
  await gw?.close();
  await receiver?.close();
  rmSync(WORK, { recursive: true, force: true });
});

for (const lang of LANGUAGES) {
  describe(`docs/recipes: ${lang.name}`, () => {
    it('runs as the README shows it, and prints a Jakarta X-TIMESTAMP', async (t) => {
      const recipe = await recipeOf(t, lang, prepared);
      if (!recipe) return;
      for (const argv of [lang.documented, recipe]) {
        const r = await exec([...argv, 'timestamp']);
        assert.equal(r.status, 0, r.stderr);
        assert.match(r.out, /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\+07:00\n$/);
        assert.ok(Math.abs((parseSnapTimestamp(r.out.trim()) as number) - Date.now()) < 5_000, r.out);
      }
      const usage = await exec([...recipe, 'no-such-command']);
      assert.equal(usage.status, 2, usage.stderr);
      const noSecret = await exec([...recipe, 'sign-token', '--timestamp', DOC.timestamp]);
      assert.equal(noSecret.status, 2, 'no SNAPGATE_CLIENT_SECRET is a usage error');
    });

    it('sign-payment, minify and sign-token write their output byte for byte as documented', async (t) => {
      const recipe = await recipeOf(t, lang, prepared);
      if (!recipe) return;
      const runs = await inParallel(PAYMENT_VECTORS, (v) => {
        const args = ['sign-payment', '--method', v.method, '--path', v.path, '--token', v.accessToken];
        return exec([...recipe, ...args, '--timestamp', v.timestamp, '--body-file', bytesFile(v.body)], {
          SNAPGATE_CLIENT_SECRET: v.secret,
        });
      });
      for (const [i, v] of PAYMENT_VECTORS.entries()) {
        const r = runs[i] as Run;
        assert.equal(r.status, 0, `${v.name}: ${r.stderr}`);
        assert.equal(r.out, `${v.signature}\n`, v.name);
        assert.ok(r.stdout.equals(Buffer.from(`${v.signature}\n`)), v.name);
      }
      const [first] = PAYMENT_VECTORS as [PaymentVector];
      const stdin = await exec(
        [
          ...recipe,
          'sign-payment',
          '--method',
          first.method,
          '--path',
          first.path,
          '--token',
          first.accessToken,
        ].concat(['--timestamp', first.timestamp, '--body-file', '-']),
        { SNAPGATE_CLIENT_SECRET: first.secret },
        first.body,
      );
      assert.equal(stdin.out, `${first.signature}\n`, 'the body on stdin');
      const minified = await inParallel(MINIFY_VECTORS, (v) =>
        exec([...recipe, 'minify', '--body-file', bytesFile(v.input)]),
      );
      for (const [i, v] of MINIFY_VECTORS.entries()) {
        const r = minified[i] as Run;
        assert.equal(r.status, 0, `${v.name}: ${r.stderr}`);
        assert.ok(r.stdout.equals(Buffer.from(v.output)), `${v.name}: ${JSON.stringify(r.out)}`);
      }
      // docs/protocol.md payment-generate end to end: the body as written, minified, signed.
      const generate = minified[0] as Run;
      const signed = await exec(
        [...recipe, 'sign-payment', '--method', 'POST', '--path', QRIS_GENERATE, '--token', 'tok123'].concat([
          '--timestamp',
          '2024-01-01T10:00:00+07:00',
          '--body-file',
          '-',
        ]),
        { SNAPGATE_CLIENT_SECRET: 'secret' },
        generate.stdout,
      );
      assert.equal(
        signed.out,
        '3ZBI/QID9VO1wkL3BuAeRxP+7s7c0uRSwCMOvHNvmH8I7kD8ERZBOmiIl+gW3zqMiWZtoe5utYkGoBxCGxUyew==\n',
      );
      const tokenRuns = await inParallel(TOKEN_VECTORS, (v) =>
        exec([...recipe, 'sign-token', '--timestamp', v.timestamp], {
          SNAPGATE_CLIENT_KEY: v.clientKey,
          SNAPGATE_CLIENT_SECRET: v.secret,
        }),
      );
      for (const [i, v] of TOKEN_VECTORS.entries()) {
        const r = tokenRuns[i] as Run;
        assert.equal(r.status, 0, r.stderr);
        assert.equal(r.out, `${v.signature}\n`, v.name);
      }
    });

    it('verify-callback accepts the signed callbacks and prints the parsed status', async (t) => {
      const recipe = await recipeOf(t, lang, prepared);
      if (!recipe) return;
      const runs = await inParallel(VALID_CALLBACKS, (v) => {
        const { args, env, input } = verifyArgs(v);
        return exec([...recipe, ...args], env, input);
      });
      for (const [i, v] of VALID_CALLBACKS.entries()) {
        const r = runs[i] as Run;
        assert.equal(r.status, 0, `${v.name}: ${r.stderr}`);
        const expected = expectedVerifyOutput(v.body);
        assert.equal(r.out, expected, v.name);
        assert.ok(r.stdout.equals(Buffer.from(expected)), v.name);
      }
    });

    it('verify-callback refuses forged bodies, wrong secrets, stale timestamps and the rest', async (t) => {
      const recipe = await recipeOf(t, lang, prepared);
      if (!recipe) return;
      const runs = await inParallel(REFUSED, ({ vector }) => {
        const { args, env, input } = verifyArgs(vector);
        return exec([...recipe, ...args], env, input);
      });
      for (const [i, { vector, reason }] of REFUSED.entries()) {
        const r = runs[i] as Run;
        assert.equal(r.status, 1, `${vector.name}: exit ${r.status}, ${r.stderr}${r.out}`);
        assert.equal(r.out, '', `${vector.name}: nothing on stdout`);
        assert.match(r.stderr, /^refused: /m, vector.name);
        assert.match(r.stderr, reason, vector.name);
      }
    });

    it('against a live gateway: token and QRIS signed by the recipe, the real callback verified', async (t) => {
      const recipe = await recipeOf(t, lang, prepared);
      if (!recipe) return;
      const m = await gw.createMerchant({
        name: `Recipe ${lang.name}`,
        partnerId: `RECIPE-${lang.name.toUpperCase()}`,
        callbackBaseUrl: `${receiver.baseUrl}/shop/${lang.name}`,
      });
      const env = {
        SNAPGATE_URL: gw.url,
        SNAPGATE_CLIENT_KEY: m.clientKey,
        SNAPGATE_CLIENT_SECRET: m.clientSecret,
        SNAPGATE_PARTNER_ID: m.partnerId,
      };
      const recipeOut = async (args: string[]) => {
        const r = await exec([...recipe, ...args], env);
        assert.equal(r.status, 0, `${args[0]}: ${r.stderr}`);
        return r.out.replace(/\n$/, '');
      };

      // The token request, signed by the recipe.
      const tokenTimestamp = await recipeOut(['timestamp']);
      const tokenSignature = await recipeOut(['sign-token', '--timestamp', tokenTimestamp]);
      assert.equal(tokenSignature, hmacSha256Base64(m.clientSecret, tokenStringToSign(m.clientKey, tokenTimestamp)));
      const token = await send(
        gw.url,
        'POST',
        B2B_TOKEN_PATH,
        {
          'content-type': 'application/json',
          'x-client-key': m.clientKey,
          'x-timestamp': tokenTimestamp,
          'x-signature': tokenSignature,
        },
        '{"grantType":"client_credentials"}',
      );
      assert.equal(token.status, 200, token.text);
      const accessToken = token.body.accessToken as string;

      // The QRIS, signed by the recipe over the exact bytes sent.
      const body = JSON.stringify({
        partnerReferenceNo: `INV/${lang.name}/${Date.now()}`,
        amount: { value: '25000.00', currency: 'IDR' },
      });
      const timestamp = formatJakartaTimestamp(Date.now());
      const signature = await recipeOut(
        ['sign-payment', '--method', 'POST', '--path', QRIS_GENERATE, '--token', accessToken].concat([
          '--timestamp',
          timestamp,
          '--body-file',
          bytesFile(body),
        ]),
      );
      const qr = await send(
        gw.url,
        'POST',
        QRIS_GENERATE,
        {
          'content-type': 'application/json',
          authorization: `Bearer ${accessToken}`,
          'x-timestamp': timestamp,
          'x-signature': signature,
          'x-partner-id': m.partnerId,
          'x-external-id': newExternalId(),
          'channel-id': '95221',
        },
        body,
      );
      assert.equal(qr.status, 200, `${qr.text}\n${gatewayErrors()}`);
      assert.equal(qr.body.responseCode, successCode(SERVICE.qrisGenerate));
      const referenceNo = qr.body.referenceNo as string;

      // Paid in the sandbox; the gateway's real callback is captured as it arrived.
      const paid = await gw.admin('POST', `/sandbox/qris/${referenceNo}/pay`, { payerName: 'Siti Ñuñez 日本' });
      assert.equal(paid.status, 200, JSON.stringify(paid.body));
      const cb = await waitFor('the callback', () => receiver.received.find((r) => r.body.includes(referenceNo)));
      assert.equal(cb.url, `/shop/${lang.name}/webhook/payment-qr-notification`);
      const header = (name: string) => cb.headers[name] as string;
      const verify = (rawBody: Uint8Array | string) =>
        exec(
          [...recipe, 'verify-callback', '--path', cb.url, '--x-timestamp', header('x-timestamp')].concat(
            ['--x-signature', header('x-signature'), '--x-partner-id', header('x-partner-id')],
            ['--body-file', bytesFile(rawBody)],
          ),
          env,
        );
      const ok = await verify(cb.body);
      assert.equal(ok.status, 0, ok.stderr);
      assert.equal(ok.out, expectedVerifyOutput(cb.body));
      assert.match(ok.out, /^latestTransactionStatus=00\naction=PAID\n/m);
      assert.match(ok.out, new RegExp(`^originalReferenceNo=${referenceNo}$`, 'm'));
      assert.match(ok.out, /^amount=25000\.00 IDR$/m);

      const forged = await verify(oneByteChanged(cb.body));
      assert.equal(forged.status, 1, forged.out);
      assert.match(forged.stderr, /refused: Invalid Signature/);

      // And the whole live call by the recipe alone: token, then a signed qr-mpm-generate.
      const partnerReferenceNo = `OWN/${lang.name}/${Date.now()}`;
      const own = await exec(
        [...recipe, 'create-qris', '--partner-reference-no', partnerReferenceNo, '--amount', '10000.00'],
        env,
      );
      assert.equal(own.status, 0, own.stderr);
      const created = JSON.parse(own.out);
      assert.equal(created.responseCode, successCode(SERVICE.qrisGenerate));
      assert.equal(created.partnerReferenceNo, partnerReferenceNo);
      assert.equal(typeof created.qrContent, 'string');
      const stored = await gw.store.findTransaction(created.referenceNo);
      assert.equal(stored?.merchantId, m.id);
      assert.equal(stored?.amount, '10000.00');
    });
  });
}

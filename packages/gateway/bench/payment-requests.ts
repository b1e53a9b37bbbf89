// The signed requests bench:payments and bench:instructions send: QRIS generate and VA create of a
// merchant of the benchmark's own (HMAC-SHA512 over a B2B access token), each with a fresh
// X-EXTERNAL-ID and partnerReferenceNo / trxId, and the B2B token request itself (HMAC-SHA256).
import {
  B2B_TOKEN_PATH,
  formatJakartaTimestamp,
  hmacSha256Base64,
  hmacSha512Base64,
  SERVICE,
  serviceStringToSign,
  successCode,
  tokenStringToSign,
} from '@snapgate/snap';
import { authenticate, type SnapCaller } from '../test/helpers/snap.ts';
import { createWithAdmin } from './bench-kit.ts';

export const API = '/api/snap/v1.0';
/** A bank registered through the admin API: production mode refuses a VA for a bank it does not know. */
export const BANK_CODE = '014';
const CHANNEL_ID = '95221';

export interface Operation {
  name: string;
  kind: 'qris' | 'va';
  path: string;
  /** The success responseCode, which every success body starts with. */
  successPrefix: string;
  /** The body of request number `n`: its partnerReferenceNo / trxId names the run and `n`. */
  body(n: number): string;
}

export interface SignedRequest {
  path: string;
  headers: Record<string, string>;
  body: string;
}

const runId = `${Date.now()}`;
let sequence = 0;

export const OPERATIONS: Operation[] = [
  {
    name: 'QRIS generate',
    kind: 'qris',
    path: `${API}/qr/qr-mpm-generate`,
    successPrefix: `{"responseCode":"${successCode(SERVICE.qrisGenerate)}"`,
    body: (n) =>
      `{"partnerReferenceNo":"Q${runId}-${n}","amount":{"value":"150000.00","currency":"IDR"},"terminalId":"T001","storeId":"S001"}`,
  },
  {
    name: 'VA create',
    kind: 'va',
    path: `${API}/transfer-va/create-va`,
    successPrefix: `{"responseCode":"${successCode(SERVICE.vaCreate)}"`,
    body: (n) =>
      `{"virtualAccountName":"Budi Santoso","trxId":"V${runId}-${n}","totalAmount":{"value":"150000.00","currency":"IDR"},` +
      `"virtualAccountEmail":"budi@example.id","virtualAccountPhone":"6281234567890","additionalInfo":{"bankCode":"${BANK_CODE}"}}`,
  },
];

/** The token's success responseCode, which its success body starts with. */
export const TOKEN_SUCCESS_PREFIX = `{"responseCode":"${successCode(SERVICE.token)}"`;

// X-TIMESTAMP has whole seconds: formatted once a second, well inside the skew window (300 s).
let stampSecond = -1;
let stamp = '';
function timestampNow(): string {
  const second = Math.floor(Date.now() / 1000);
  if (second !== stampSecond) {
    stampSecond = second;
    stamp = formatJakartaTimestamp(second * 1000);
  }
  return stamp;
}

/** A payment API call signed for `caller` (HMAC-SHA512 of the service string-to-sign). */
export function signed(caller: SnapCaller, path: string, body: string, externalId: string): SignedRequest {
  const timestamp = timestampNow();
  const data = serviceStringToSign({ method: 'POST', path, accessToken: caller.accessToken, rawBody: body, timestamp });
  return {
    path,
    body,
    headers: {
      'content-type': 'application/json',
      authorization: `Bearer ${caller.accessToken}`,
      'x-timestamp': timestamp,
      'x-signature': hmacSha512Base64(caller.clientSecret, data),
      'x-partner-id': caller.partnerId,
      'x-external-id': externalId,
      'channel-id': CHANNEL_ID,
    },
  };
}

/** Request number `n` of an operation; its X-EXTERNAL-ID (digits only) is unique in the run. */
export function nextRequest(caller: SnapCaller, op: Operation): SignedRequest {
  const n = ++sequence;
  return signed(caller, op.path, op.body(n), `${runId}${String(n).padStart(9, '0')}`);
}

/** A B2B token request of `caller`, signed HMAC-SHA256 over `clientKey|timestamp`. */
export function tokenRequest(caller: SnapCaller): SignedRequest {
  const timestamp = timestampNow();
  return {
    path: B2B_TOKEN_PATH,
    body: '{"grantType":"client_credentials"}',
    headers: {
      'content-type': 'application/json',
      'x-client-key': caller.clientKey,
      'x-timestamp': timestamp,
      'x-signature': hmacSha256Base64(caller.clientSecret, tokenStringToSign(caller.clientKey, timestamp)),
    },
  };
}

/** Registers the bank of BANK_CODE (VA create needs it in production mode) through the admin API. */
export async function registerBenchBank(baseUrl: string, adminToken: string): Promise<void> {
  await createWithAdmin(baseUrl, adminToken, '/providers', { name: 'bench bank', kind: 'bank', bankCode: BANK_CODE });
}

/** A merchant of the benchmark's own, with a B2B token (valid 15 minutes: a longer run takes a fresh one). */
export async function merchantCaller(baseUrl: string, adminToken: string): Promise<SnapCaller> {
  const m = await createWithAdmin(baseUrl, adminToken, '/merchants', { name: 'bench', nmid: 'ID1020000000001' });
  return authenticate(baseUrl, {
    clientKey: String(m.clientKey),
    clientSecret: String(m.clientSecret),
    partnerId: String(m.partnerId),
  });
}

import { formatJakartaTimestamp, hmacSha256Base64, rsaSha256SignBase64, tokenStringToSign } from '@snapgate/snap';
import { request } from 'undici';

export const TOKEN_PATH = '/api/snap/v1.0/access-token/b2b';

export interface TokenRequestOptions {
  clientKey: string;
  clientSecret?: string;
  privateKeyPem?: string;
  timestamp?: string;
  body?: string;
  headers?: Record<string, string | undefined>;
}

/** Headers and body of a correctly signed B2B token request, overridable piece by piece. */
export function tokenRequest(o: TokenRequestOptions): { headers: Record<string, string>; body: string } {
  const timestamp = o.timestamp ?? formatJakartaTimestamp(Date.now());
  const data = tokenStringToSign(o.clientKey, timestamp);
  const signature = o.privateKeyPem
    ? rsaSha256SignBase64(o.privateKeyPem, data)
    : hmacSha256Base64(o.clientSecret ?? '', data);
  const headers: Record<string, string | undefined> = {
    'content-type': 'application/json',
    'x-client-key': o.clientKey,
    'x-timestamp': timestamp,
    'x-signature': signature,
    ...o.headers,
  };
  const clean: Record<string, string> = {};
  for (const [k, v] of Object.entries(headers)) if (v !== undefined) clean[k] = v;
  return { headers: clean, body: o.body ?? '{"grantType":"client_credentials"}' };
}

export async function postToken(baseUrl: string, o: TokenRequestOptions) {
  const { headers, body } = tokenRequest(o);
  return send(baseUrl, 'POST', TOKEN_PATH, headers, body);
}

/** A bound customer's token request (B2B2C, service 74), signed as the B2B token request is. */
export async function postCustomerToken(baseUrl: string, o: TokenRequestOptions & { body: string }) {
  const { headers, body } = tokenRequest(o);
  return send(baseUrl, 'POST', '/api/snap/v1.0/access-token/b2b2c', headers, body);
}

/** Sends exactly these headers and bytes (fetch would add a Content-Type of its own). */
export async function send(
  baseUrl: string,
  method: string,
  path: string,
  headers: Record<string, string>,
  body: string | Buffer | undefined,
) {
  const res = await request(`${baseUrl}${path}`, { method: method as 'POST', headers, body });
  const text = await res.body.text();
  let json: any;
  try {
    json = JSON.parse(text);
  } catch {
    json = undefined;
  }
  const h = new Headers();
  for (const [k, v] of Object.entries(res.headers)) if (typeof v === 'string') h.set(k, v);
  return { status: res.statusCode, body: json, text, headers: h };
}

let externalSeq = 0;
/** A fresh numeric X-EXTERNAL-ID. */
export const newExternalId = () => `${Date.now()}${String(++externalSeq).padStart(6, '0')}`;

export interface SnapCaller {
  clientKey: string;
  clientSecret: string;
  partnerId: string;
  accessToken: string;
}

export interface SnapCallOptions {
  method?: string;
  /** Overrides or removes (undefined) headers. */
  headers?: Record<string, string | undefined>;
  externalId?: string;
  timestamp?: string;
  /** Sign these bytes but send the body as given (to test tampering). */
  signBody?: string;
  secret?: string;
}

/** Takes a token for a merchant and returns what signed calls need. */
export async function authenticate(
  baseUrl: string,
  m: { clientKey: string; clientSecret: string; partnerId: string },
): Promise<SnapCaller> {
  const r = await postToken(baseUrl, { clientKey: m.clientKey, clientSecret: m.clientSecret });
  if (r.status !== 200) throw new Error(`token: ${r.status} ${r.text}`);
  return {
    clientKey: m.clientKey,
    clientSecret: m.clientSecret,
    partnerId: m.partnerId,
    accessToken: r.body.accessToken,
  };
}

/** A correctly signed payment API call (docs/protocol.md#payment-calls), overridable piece by piece. */
export async function snapCall(
  baseUrl: string,
  caller: SnapCaller,
  path: string,
  body: unknown,
  o: SnapCallOptions = {},
) {
  const { createHash, createHmac } = await import('node:crypto');
  const method = o.method ?? 'POST';
  const raw = typeof body === 'string' ? body : JSON.stringify(body);
  const timestamp = o.timestamp ?? formatJakartaTimestamp(Date.now());
  const hash = createHash('sha256')
    .update(o.signBody ?? raw)
    .digest('hex');
  const toSign = `${method}:${path}:${caller.accessToken}:${hash}:${timestamp}`;
  const signature = createHmac('sha512', o.secret ?? caller.clientSecret)
    .update(toSign)
    .digest('base64');
  const headers: Record<string, string | undefined> = {
    'content-type': 'application/json',
    authorization: `Bearer ${caller.accessToken}`,
    'x-timestamp': timestamp,
    'x-signature': signature,
    'x-partner-id': caller.partnerId,
    'x-external-id': o.externalId ?? newExternalId(),
    'channel-id': '95221',
    ...o.headers,
  };
  const clean: Record<string, string> = {};
  for (const [k, v] of Object.entries(headers)) if (v !== undefined) clean[k] = v;
  return send(baseUrl, method, path, clean, raw);
}

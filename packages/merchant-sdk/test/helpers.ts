import { createServer, type IncomingHttpHeaders, type RequestListener } from 'node:http';
import type { AddressInfo } from 'node:net';
import { callbackHmacStringToSign, formatJakartaTimestamp, hmacSha512Base64 } from '@snapgate/snap';
import type { Clock } from '../src/clock.ts';

export interface Recorded {
  url: string;
  method: string;
  headers: Record<string, string>;
  body: string;
}

/** A fetch that records each request and answers with `respond` (which may throw, like a network). */
export function fakeFetch(respond: (r: Recorded, n: number) => Response | Promise<Response>) {
  const calls: Recorded[] = [];
  const f = (async (input: string | URL | Request, init: RequestInit = {}) => {
    const headers: Record<string, string> = {};
    new Headers(init.headers).forEach((v, k) => {
      headers[k] = v;
    });
    const body =
      init.body === undefined || init.body === null
        ? ''
        : typeof init.body === 'string'
          ? init.body
          : Buffer.from(init.body as Uint8Array).toString('utf8');
    const r: Recorded = { url: String(input), method: init.method ?? 'GET', headers, body };
    calls.push(r);
    return respond(r, calls.length);
  }) as typeof fetch;
  return { fetch: f, calls };
}

export const json = (status: number, body: unknown) =>
  new Response(JSON.stringify(body), { status, headers: { 'content-type': 'application/json' } });

export function manualClock(startMs: number): Clock & { advance(ms: number): void } {
  let t = startMs;
  return {
    now: () => t,
    advance: (ms) => {
      t += ms;
    },
  };
}

/** A real node:http server on 127.0.0.1. */
export async function listen(listener: RequestListener) {
  const server = createServer(listener);
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  return {
    url,
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}

export const SECRET = 'merchant-secret-0123456789';
export const PARTNER = 'PARTNER-1';
export const QR_PATH = '/webhook/payment-qr-notification';

let seq = 0;
export function notificationBody(status: string, ref = 'REF-1', extra: Record<string, unknown> = {}): string {
  return JSON.stringify({
    originalReferenceNo: ref,
    originalPartnerReferenceNo: `ORDER-${ref}`,
    latestTransactionStatus: status,
    amount: { value: '10000.00', currency: 'IDR' },
    additionalInfo: {
      payerIssuer: '93600009',
      payerName: 'SITI',
      payerRefId: '123456',
      billNumber: 100000000001,
      transactionDate: '2024-01-01T10:00:00+07:00',
      feeAmount: { value: '0.00', currency: 'IDR' },
    },
    ...extra,
  });
}

/** Headers of a callback signed as the gateway signs it (docs/protocol.md#callbacks, hmac-sha512). */
export function signedHeaders(
  body: string,
  o: {
    path?: string;
    nowMs?: number;
    secret?: string;
    partnerId?: string;
    externalId?: string;
    timestamp?: string;
  } = {},
): IncomingHttpHeaders & Record<string, string> {
  const timestamp = o.timestamp ?? formatJakartaTimestamp(o.nowMs ?? Date.now());
  const partnerId = o.partnerId ?? PARTNER;
  const data = callbackHmacStringToSign({ path: o.path ?? QR_PATH, partnerId, rawBody: body, timestamp });
  return {
    'content-type': 'application/json',
    'x-timestamp': timestamp,
    'x-partner-id': partnerId,
    'x-external-id': o.externalId ?? `${Date.now()}${String(++seq).padStart(7, '0')}`,
    'x-signature': hmacSha512Base64(o.secret ?? SECRET, data),
  };
}

/** POSTs a callback to a receiver and returns the status and parsed body. */
export async function post(url: string, body: string, headers: Record<string, string>) {
  const res = await fetch(url, { method: 'POST', headers, body });
  return { status: res.status, body: JSON.parse(await res.text()) as unknown };
}

export const TRANSFER_PATH = '/v1.0/transfer/notify';

/** A transfer callback body as the gateway writes it (docs/protocol.md#transfer-callbacks). */
export function transferBody(status: string, ref = 'PO-1', extra: Record<string, unknown> = {}): string {
  return JSON.stringify({
    originalPartnerReferenceNo: `PAY-${ref}`,
    originalReferenceNo: ref,
    serviceCode: '18',
    latestTransactionStatus: status,
    transactionStatusDesc: status === '00' ? 'Success' : status === '06' ? 'Failed' : 'Pending',
    amount: { value: '1500000.00', currency: 'IDR' },
    beneficiaryAccountNo: '1234567890',
    beneficiaryBankCode: '014',
    additionalInfo: { batch: 'B-1' },
    ...extra,
  });
}

// Type-checked in the fresh project with a strict tsc (NodeNext, skipLibCheck off): the ESM types.
import type { IncomingMessage, ServerResponse } from 'node:http';
import {
  type CallbackHandler,
  createCallbackHandler,
  createSnapClient,
  createTokenClient,
  idr,
  type PaymentNotification,
  SnapApiError,
  SnapNetworkError,
  type StatusEvent,
  toMinorUnits,
  verifyCallback,
} from '@snapgate/merchant-sdk';
import { bodyDigest, hmacSha512Base64, serviceStringToSign } from '@snapgate/snap';

const tokens = createTokenClient({ baseUrl: 'http://127.0.0.1:8080', clientKey: 'k', clientSecret: 's' });
const snap = createSnapClient({
  baseUrl: 'http://127.0.0.1:8080',
  partnerId: 'p',
  clientSecret: 's',
  tokenClient: tokens,
});

export async function pay(orderId: string): Promise<string | undefined> {
  try {
    const qr = await snap.generateQris({ partnerReferenceNo: orderId, amount: idr('10000.00') });
    return qr.qrContent;
  } catch (e) {
    if (e instanceof SnapApiError) return e.responseCode;
    if (e instanceof SnapNetworkError) return e.timedOut ? 'timeout' : e.code;
    throw e;
  }
}

export const handler: CallbackHandler = createCallbackHandler({
  clientSecret: 's',
  partnerId: 'p',
  onStatus: (event: StatusEvent) => {
    const cents: bigint = toMinorUnits(event.notification.amount.value);
    if (cents < 0n) throw new Error('impossible');
  },
});
export const listener: (req: IncomingMessage, res: ServerResponse) => void = handler;

export function verify(rawBody: Buffer, headers: Record<string, string>): PaymentNotification {
  return verifyCallback({ method: 'POST', path: '/cb', headers, rawBody }, { clientSecret: 's', partnerId: 'p' });
}

export const signature: string = hmacSha512Base64(
  's',
  serviceStringToSign({ method: 'POST', path: '/x', accessToken: 't', rawBody: '{}', timestamp: 'now' }),
);
export const digest: string = bodyDigest('{}');

import type { KeyObject } from 'node:crypto';
import {
  B2B_TOKEN_PATH,
  callbackHmacStringToSign,
  callbackRsaStringToSign,
  formatJakartaTimestamp,
  hmacSha512Base64,
  rsaSha256SignBase64,
  serviceStringToSign,
} from '@snapgate/snap';
import { isTransactionKind, methodOf, TRANSACTION_KINDS } from '../methods/index.ts';
import type { MerchantRecord, NotificationKind } from '../records/records.ts';
import { type AckRule, ackRuleOf, strictAck } from './send.ts';

/**
 * The headers of one callback attempt (docs/protocol.md#callbacks): a fresh X-TIMESTAMP and signature each time,
 * over the stored body bytes; X-EXTERNAL-ID is the notification's id on every attempt and replay.
 */
export function callbackHeaders(input: {
  merchant: Pick<MerchantRecord, 'partnerId' | 'clientSecret' | 'callbackSignature'>;
  url: URL;
  body: string;
  notificationId: string;
  nowMs: number;
  gatewayPrivateKey: KeyObject;
  /** `snap-b2b`: the token the merchant's own token endpoint issued to the gateway. */
  accessToken?: string | undefined;
  /** X-Request-Id: the request that caused the notification (its id when none did). */
  requestId?: string | null | undefined;
}): Record<string, string> {
  const { merchant, url, body, notificationId, nowMs, accessToken } = input;
  const timestamp = formatJakartaTimestamp(nowMs);
  const path = `${url.pathname}${url.search}`;
  const common = {
    'content-type': 'application/json',
    'x-timestamp': timestamp,
    'x-partner-id': merchant.partnerId,
    'x-external-id': notificationId,
    'x-request-id': input.requestId ?? notificationId,
  };
  if (merchant.callbackSignature === 'snap-b2b') {
    if (!accessToken) throw new TypeError('a snap-b2b callback needs the merchant’s access token');
    // The SNAP inbound form: the payment API's string-to-sign, bound to the merchant's token.
    const data = serviceStringToSign({ method: 'POST', path, accessToken, rawBody: body, timestamp });
    return {
      ...common,
      authorization: `Bearer ${accessToken}`,
      'channel-id': SNAP_B2B_CHANNEL_ID,
      'x-signature': hmacSha512Base64(merchant.clientSecret, data),
    };
  }
  const signature =
    merchant.callbackSignature === 'rsa-sha256'
      ? rsaSha256SignBase64(input.gatewayPrivateKey, callbackRsaStringToSign({ path, rawBody: body, timestamp }))
      : hmacSha512Base64(
          merchant.clientSecret,
          callbackHmacStringToSign({ path, partnerId: merchant.partnerId, rawBody: body, timestamp }),
        );
  return { ...common, 'x-signature': signature };
}

export const SNAP_B2B_CHANNEL_ID = '95221';

/** A callback's headers as the attempt log and reports keep them: never the merchant's token. */
export function loggedCallbackHeaders(headers: Record<string, string>): Record<string, string> {
  return headers.authorization ? { ...headers, authorization: 'Bearer <redacted>' } : headers;
}

/** Where a `snap-b2b` merchant issues tokens: its callbackTokenUrl, or the SNAP path under its base URL. */
export function callbackTokenUrlOf(merchant: MerchantRecord): string | undefined {
  if (merchant.callbackTokenUrl) return merchant.callbackTokenUrl;
  if (!merchant.callbackBaseUrl) return undefined;
  const url = new URL(merchant.callbackBaseUrl);
  url.pathname = `${url.pathname.replace(/\/+$/, '')}${B2B_TOKEN_PATH}`;
  return url.toString();
}

export const QRIS_CALLBACK_PATH = methodOf('qris').callback.path;
export const VA_CALLBACK_PATH = methodOf('va').callback.path;
/** The strict acknowledgement of each kind of notification (a transfer's: `2002600`). */
const STRICT_ACK = new Map<NotificationKind, AckRule>(
  TRANSACTION_KINDS.map((kind) => [kind, strictAck(methodOf(kind).callback.ackCodes)]),
);

/** What acknowledges a callback of this kind to this merchant (its `callbackAck`, the method's codes). */
export const ackOf = (merchant: Pick<MerchantRecord, 'callbackAck'>, kind: NotificationKind): AckRule =>
  ackRuleOf(merchant.callbackAck, STRICT_ACK.get(kind));

/** Where a disbursement's end is told under the base URL (docs/payouts.md#transfer-callbacks). */
export const TRANSFER_CALLBACK_PATH = '/v1.0/transfer/notify';

/**
 * Where a merchant receives a kind of notification, or `undefined` when it has not said. `own`: the
 * notification's own URL (an e-wallet payment's `PAY_NOTIFY`), which comes first.
 */
export function callbackUrlOf(
  merchant: MerchantRecord,
  kind: NotificationKind,
  own?: string | null | undefined,
): string | undefined {
  const method = isTransactionKind(kind) ? methodOf(kind) : undefined;
  // A notification of a kind this version does not know (written by a newer one) goes nowhere:
  // its attempts say so, and it is retried until a version that knows it sends it.
  if (!method && kind !== 'transfer') return undefined;
  if (own) return own;
  const setting = method?.callback.urlSetting;
  const explicit = method ? (setting ? merchant[setting] : null) : (merchant.transferCallbackUrl ?? null);
  const path = method ? method.callback.path : TRANSFER_CALLBACK_PATH;
  if (explicit) return explicit;
  if (!merchant.callbackBaseUrl) return undefined;
  // The path joins the base's path; a query on the base stays a query (`/shop?tenant=7`).
  const url = new URL(merchant.callbackBaseUrl);
  url.pathname = `${url.pathname.replace(/\/+$/, '')}${path}`;
  return url.toString();
}

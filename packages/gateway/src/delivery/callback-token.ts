import type { KeyObject } from 'node:crypto';
import { formatJakartaTimestamp, rsaSha256SignBase64, tokenStringToSign } from '@snapgate/snap';
import type { Clock } from '../clock.ts';
import type { MerchantRecord } from '../records/records.ts';
import { createTokenCache, type TakenToken } from '../tokens/token-cache.ts';
import { callbackTokenUrlOf } from './callback-signing.ts';
import type { Sender } from './send.ts';

/** Reuse a merchant's token until this long before it expires. */
const REFRESH_AHEAD_MS = 30_000;
const TOKEN_BODY = '{"grantType":"client_credentials"}';

/** What a token request looked like, for the attempt log (never the token itself). */
export interface TokenRequestRecord {
  url: string | null;
  requestHeaders: Record<string, string>;
  status: number | null;
  responseBody: string | null;
  durationMs: number;
}

/** The merchant's token endpoint did not issue a token: the attempt fails and is retried. */
export class CallbackTokenFailed extends Error {
  readonly request: TokenRequestRecord;
  constructor(message: string, request: TokenRequestRecord) {
    super(message);
    this.name = 'CallbackTokenFailed';
    this.request = request;
  }
}

export interface CallbackTokens {
  /**
   * The token for a `snap-b2b` merchant: the cached one while good, else one fresh token request,
   * shared by every attempt that needs it meanwhile (one request at a time per merchant).
   * `taken` is set when this call's attempt caused the request.
   */
  get(merchant: MerchantRecord): Promise<{ token: string; taken?: TokenRequestRecord }>;
  /** A 401 on a callback: the merchant no longer takes this token. */
  drop(merchantId: string, token: string): void;
}

/**
 * The gateway as a SNAP client of each `snap-b2b` merchant: it takes a B2B token from the
 * merchant's own token endpoint, signed SHA256withRSA with the gateway's callback key (the
 * merchant verifies it with the key at /.well-known/snapgate/callback-public-key.pem). Tokens live
 * in this process: each gateway instance takes its own, as any SNAP client would.
 */
export function createCallbackTokens(deps: {
  sender: Sender;
  clock: Clock;
  gatewayPrivateKey: KeyObject;
}): CallbackTokens {
  const cache = createTokenCache<TakenToken & { record: TokenRequestRecord }>({ clock: deps.clock });

  async function request(merchant: MerchantRecord) {
    const target = callbackTokenUrlOf(merchant);
    const nowMs = deps.clock.now();
    const timestamp = formatJakartaTimestamp(nowMs);
    const requestHeaders = {
      'content-type': 'application/json',
      'x-client-key': merchant.clientKey,
      'x-timestamp': timestamp,
      'x-signature': rsaSha256SignBase64(deps.gatewayPrivateKey, tokenStringToSign(merchant.clientKey, timestamp)),
    };
    if (!target) {
      const record = { url: null, requestHeaders: {}, status: null, responseBody: null, durationMs: 0 };
      throw new CallbackTokenFailed('the merchant has no callbackTokenUrl or callbackBaseUrl', record);
    }
    const r = await deps.sender.post(new URL(target), requestHeaders, TOKEN_BODY);
    const taken: TokenRequestRecord = {
      url: target,
      requestHeaders,
      status: r.status,
      responseBody: r.responseBody,
      durationMs: r.durationMs,
    };
    type Answer = { responseCode?: unknown; accessToken?: unknown; expiresIn?: unknown; body?: unknown };
    let answer: Answer = {};
    try {
      const parsed: unknown = JSON.parse(r.responseBody ?? '');
      if (typeof parsed === 'object' && parsed !== null) answer = parsed as Answer;
      // DOKU's library builds its answer as { header, body }: a merchant may send it whole.
      if (!('accessToken' in answer) && typeof answer.body === 'object' && answer.body !== null) {
        answer = answer.body as Answer;
      }
    } catch {
      // not JSON: refused below
    }
    const isToken =
      r.status === 200 &&
      typeof answer.responseCode === 'string' &&
      answer.responseCode.startsWith('2007') &&
      typeof answer.accessToken === 'string' &&
      answer.accessToken !== '';
    if (!isToken) {
      throw new CallbackTokenFailed(r.error ?? `no token: HTTP ${r.status ?? '-'}`, taken);
    }
    const expiresInSec = Number(answer.expiresIn);
    const reuseUntilMs = Number.isFinite(expiresInSec) ? nowMs + expiresInSec * 1000 - REFRESH_AHEAD_MS : nowMs;
    return { token: answer.accessToken as string, reuseUntilMs, record: taken };
  }

  return {
    async get(merchant) {
      // What the token is taken with: another client key or URL takes a new one.
      const key = `${merchant.clientKey}\n${callbackTokenUrlOf(merchant) ?? ''}`;
      const { token, taken } = await cache.take(merchant.id, key, () => request(merchant));
      return taken ? { token, taken: taken.record } : { token };
    },
    drop(merchantId, token) {
      cache.drop(merchantId, token);
    },
  };
}

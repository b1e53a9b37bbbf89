import { randomInt } from 'node:crypto';
import { formatJakartaTimestamp, hmacSha512Base64, SERVICE, serviceStringToSign } from '@snapgate/snap';
import { type Clock, systemClock } from './clock.ts';
import type {
  BindAccountRequest,
  BindAccountResponse,
  CancelDebitRequest,
  CancelDebitResponse,
  DebitStatusRequest,
  DebitStatusResponse,
  PayDebitRequest,
  PayDebitResponse,
  RefundDebitRequest,
  RefundDebitResponse,
  UnbindAccountRequest,
  UnbindAccountResponse,
} from './debit-types.ts';
import { errorFromAnswer, exchange, isSuccess, SnapApiError, SnapNetworkError } from './errors.ts';
import type {
  AccountInquiryRequest,
  AccountInquiryResponse,
  CancelQrisRequest,
  CancelQrisResponse,
  CreateVaRequest,
  CreateVaResponse,
  DeleteVaRequest,
  DeleteVaResponse,
  GenerateQrisRequest,
  GenerateQrisResponse,
  InquiryVaRequest,
  InquiryVaResponse,
  QueryQrisRequest,
  QueryQrisResponse,
  RefundQrisRequest,
  RefundQrisResponse,
  TransferRequest,
  TransferResponse,
  TransferStatusRequest,
  TransferStatusResponse,
  UpdateVaRequest,
  UpdateVaResponse,
  VaStatusRequest,
  VaStatusResponse,
} from './types.ts';

/**
 * The payment API prefix (docs/protocol.md#payment-calls).
 *
 * @example
 * `${API_PREFIX}/qr/qr-mpm-generate`; // '/api/snap/v1.0/qr/qr-mpm-generate'
 */
export const API_PREFIX = '/api/snap/v1.0';

/**
 * Options of {@link createSnapClient}.
 *
 * @example
 * const options: SnapClientOptions = { baseUrl, partnerId, clientSecret, tokenClient: tokens, retries: 3 };
 */
export interface SnapClientOptions {
  /** The gateway's base address, e.g. `http://127.0.0.1:8080` (a path prefix is kept and signed). */
  baseUrl: string;
  /** X-PARTNER-ID: the merchant's partner ID (snapgate's default is the client key). */
  partnerId: string;
  /** Keys the HMAC-SHA512 request signature. */
  clientSecret: string;
  /** Where access tokens come from; `invalidate` (optional) is called when the gateway refuses one. */
  tokenClient: { getToken(): Promise<string>; invalidate?(): void };
  /** CHANNEL-ID (≤ 5 characters). Default `95221`. */
  channelId?: string;
  fetch?: typeof fetch;
  clock?: Clock;
  /** Extra attempts after a network failure (never after an HTTP answer). Default 2. */
  retries?: number;
  /** Delay before the first retry, doubled for each next one. Default 250. */
  retryDelayMs?: number;
  /** Abort an attempt after this long; it then counts as a network failure. Default 30 000. */
  timeoutMs?: number;
  /** Makes X-EXTERNAL-ID values; default: epoch ms + 9 random digits (22 digits). */
  newExternalId?: () => string;
}

/**
 * Per-call options.
 *
 * @example
 * await snap.generateQris(body, { externalId: order.externalId }); // the same id after a crash
 */
export interface CallOptions {
  /**
   * X-EXTERNAL-ID to use (numeric, ≤ 36 digits). Keep it with the order to retry the very same
   * request later (after a crash): the gateway answers a repeat from its idempotency record.
   */
  externalId?: string;
  /**
   * A bound customer's token (`Authorization-Customer`, docs/ewallets.md#account-binding): a
   * {@link SnapClient.payDebit} is then debited from the bound account without a redirect;
   * {@link SnapClient.unbindAccount} needs it.
   */
  customerToken?: string;
}

/**
 * A typed method for every payment API operation (docs/protocol.md#payment-calls), e-wallet payment
 * (docs/ewallets.md) and disbursement (docs/protocol.md#disbursements); see {@link createSnapClient}.
 *
 * @example
 * const snap: SnapClient = createSnapClient({ baseUrl, partnerId, clientSecret, tokenClient });
 * await snap.deleteVa({ virtualAccountNo, trxId });
 */
export interface SnapClient {
  generateQris(body: GenerateQrisRequest, options?: CallOptions): Promise<GenerateQrisResponse>;
  queryQris(body: QueryQrisRequest, options?: CallOptions): Promise<QueryQrisResponse>;
  cancelQris(body: CancelQrisRequest, options?: CallOptions): Promise<CancelQrisResponse>;
  refundQris(body: RefundQrisRequest, options?: CallOptions): Promise<RefundQrisResponse>;
  createVa(body: CreateVaRequest, options?: CallOptions): Promise<CreateVaResponse>;
  inquiryVa(body: InquiryVaRequest, options?: CallOptions): Promise<InquiryVaResponse>;
  vaStatus(body: VaStatusRequest, options?: CallOptions): Promise<VaStatusResponse>;
  updateVa(body: UpdateVaRequest, options?: CallOptions): Promise<UpdateVaResponse>;
  deleteVa(body: DeleteVaRequest, options?: CallOptions): Promise<DeleteVaResponse>;
  /** Who holds an account (16). */
  accountInquiry(body: AccountInquiryRequest, options?: CallOptions): Promise<AccountInquiryResponse>;
  /**
   * Sends money (18). Resolves for `2001800` (paid) and for HTTP 202 `2021800` (pending: its end
   * comes by transfer callback and {@link SnapClient.transferStatus}); a refusal throws.
   */
  transfer(body: TransferRequest, options?: CallOptions): Promise<TransferResponse>;
  /** Where a transfer stands (36); `serviceCode` defaults to `"18"`. */
  transferStatus(body: TransferStatusRequest, options?: CallOptions): Promise<TransferStatusResponse>;
  /** An e-wallet payment (54): send the payer to its `webRedirectUrl` (docs/ewallets.md). */
  payDebit(body: PayDebitRequest, options?: CallOptions): Promise<PayDebitResponse>;
  /** Where an e-wallet payment stands (55); `serviceCode` defaults to `"54"`. */
  debitStatus(body: DebitStatusRequest, options?: CallOptions): Promise<DebitStatusResponse>;
  /** Cancels an unpaid e-wallet payment (57). */
  cancelDebit(body: CancelDebitRequest, options?: CallOptions): Promise<CancelDebitResponse>;
  /** Refunds part or all of a paid e-wallet payment (58). */
  refundDebit(body: RefundDebitRequest, options?: CallOptions): Promise<RefundDebitResponse>;
  /** Asks a customer to bind their wallet account (07): send them to the answer's `redirectUrl`. */
  bindAccount(body: BindAccountRequest, options?: CallOptions): Promise<BindAccountResponse>;
  /** Ends the binding of `options.customerToken` (09). */
  unbindAccount(
    body: UnbindAccountRequest,
    options: CallOptions & { customerToken: string },
  ): Promise<UnbindAccountResponse>;
}

const EXTERNAL_ID = /^\d{1,36}$/;

/**
 * A numeric X-EXTERNAL-ID: epoch milliseconds and 9 random digits (22 digits; docs/protocol.md#payment-calls allows 36).
 *
 * @example
 * newExternalId(Date.now()); // '1704078000000482913771'
 */
export function newExternalId(nowMs: number): string {
  return `${nowMs}${String(randomInt(1_000_000_000)).padStart(9, '0')}`;
}

/**
 * A client for the SNAP payment API (docs/protocol.md#payment-calls). Every call is signed with
 * base64(HMAC-SHA512(clientSecret, `METHOD:path:accessToken:sha256hex(body):X-TIMESTAMP`)) over
 * exactly the bytes it sends, carries a fresh numeric X-EXTERNAL-ID, and resolves to the
 * gateway's typed answer: a SNAP success, HTTP 2xx with a `2xx…` responseCode — which includes a
 * transfer's 202 `2021800` Request In Progress. Anything else throws a {@link SnapApiError} with
 * the gateway's `responseCode`. A network failure (refused, reset, timed out) is retried with the same
 * X-EXTERNAL-ID and the same body bytes — only the timestamp and signature are fresh — so the
 * gateway's idempotency (method + path + body hash) answers a retry of a request it already ran
 * with the original response instead of running it twice. A refused token (`401xx01`) is
 * dropped and the call made once more with a new one.
 *
 * @example
 * const snap = createSnapClient({ baseUrl, partnerId, clientSecret, tokenClient: tokens });
 * const qr = await snap.generateQris({
 *   partnerReferenceNo: 'ORDER-1',
 *   amount: { value: '10000.00', currency: 'IDR' },
 * });
 * console.log(qr.qrContent);
 */
export function createSnapClient(options: SnapClientOptions): SnapClient {
  const { partnerId, clientSecret, tokenClient } = options;
  if (!partnerId || !clientSecret) throw new TypeError('createSnapClient: partnerId and clientSecret are required');
  const channelId = options.channelId ?? '95221';
  if (channelId.length === 0 || channelId.length > 5)
    throw new TypeError('createSnapClient: channelId is 1 to 5 characters');
  const doFetch = options.fetch ?? fetch;
  const clock = options.clock ?? systemClock;
  const retries = options.retries ?? 2;
  const retryDelayMs = options.retryDelayMs ?? 250;
  const timeoutMs = options.timeoutMs ?? 30_000;
  const makeExternalId = options.newExternalId ?? (() => newExternalId(clock.now()));
  const base = new URL(options.baseUrl);
  const origin = base.origin;
  // The signature covers the request target exactly as sent (docs/protocol.md#payment-calls):
  // a base path is part of it.
  const prefix = `${base.pathname.replace(/\/+$/, '')}${API_PREFIX}`;

  async function attempt(
    method: string,
    path: string,
    raw: Uint8Array<ArrayBuffer>,
    externalId: string,
    serviceCode: string,
    customerToken: string | undefined,
  ) {
    const accessToken = await tokenClient.getToken();
    const timestamp = formatJakartaTimestamp(clock.now());
    const signature = hmacSha512Base64(
      clientSecret,
      serviceStringToSign({ method, path, accessToken, rawBody: raw, timestamp }),
    );
    const answer = await exchange(
      doFetch,
      `${origin}${path}`,
      {
        method,
        headers: {
          'content-type': 'application/json',
          authorization: `Bearer ${accessToken}`,
          'x-timestamp': timestamp,
          'x-signature': signature,
          'x-partner-id': partnerId,
          'x-external-id': externalId,
          'channel-id': channelId,
          ...(customerToken === undefined ? {} : { 'authorization-customer': `Bearer ${customerToken}` }),
        },
        body: raw,
      },
      timeoutMs,
    );
    if (!isSuccess(answer)) throw errorFromAnswer(answer, serviceCode);
    return answer.json;
  }

  async function call<T>(
    method: 'POST' | 'PUT' | 'DELETE',
    operation: string,
    serviceCode: string,
    body: object,
    callOptions: CallOptions = {},
  ): Promise<T> {
    const externalId = callOptions.externalId ?? makeExternalId();
    if (!EXTERNAL_ID.test(externalId)) throw new TypeError('X-EXTERNAL-ID must be 1 to 36 digits');
    const path = `${prefix}/${operation}`;
    // Serialised once: every attempt sends (and signs) these very bytes.
    const raw = new TextEncoder().encode(JSON.stringify(body));
    let tokenRetried = false;
    let networkFailures = 0;
    for (;;) {
      try {
        return (await attempt(method, path, raw, externalId, serviceCode, callOptions.customerToken)) as T;
      } catch (e) {
        if (e instanceof SnapApiError) {
          // A refused token is not kept by the gateway's idempotency: the same id may go again.
          const isTokenRefused = e.responseCode === `401${serviceCode}01`;
          if (!isTokenRefused || !tokenClient.invalidate || tokenRetried) throw e;
          tokenRetried = true;
          tokenClient.invalidate();
          continue;
        }
        // No answer: the gateway may or may not have run it. The same id and bytes make it safe.
        if (!(e instanceof SnapNetworkError) || networkFailures >= retries) throw e;
        await new Promise((resolve) => setTimeout(resolve, retryDelayMs * 2 ** networkFailures));
        networkFailures++;
      }
    }
  }

  return {
    generateQris: (body, o) => call('POST', 'qr/qr-mpm-generate', SERVICE.qrisGenerate, body, o),
    queryQris: (body, o) => call('POST', 'qr/qr-mpm-query', SERVICE.qrisQuery, { ...body, serviceCode: '47' }, o),
    cancelQris: (body, o) => call('POST', 'qr/qr-mpm-cancel', SERVICE.qrisCancel, body, o),
    refundQris: (body, o) => call('POST', 'qr/qr-mpm-refund', SERVICE.qrisRefund, body, o),
    createVa: (body, o) => call('POST', 'transfer-va/create-va', SERVICE.vaCreate, body, o),
    inquiryVa: (body, o) => call('POST', 'transfer-va/inquiry-va', SERVICE.vaInquiry, body, o),
    vaStatus: (body, o) => call('POST', 'transfer-va/status', SERVICE.vaInquiryStatus, body, o),
    updateVa: (body, o) => call('PUT', 'transfer-va/update-va', SERVICE.vaUpdate, body, o),
    deleteVa: (body, o) => call('DELETE', 'transfer-va/delete-va', SERVICE.vaDelete, body, o),
    accountInquiry: (body, o) => call('POST', 'account-inquiry-external', SERVICE.accountInquiryExternal, body, o),
    transfer: (body, o) => call('POST', 'transfer-interbank', SERVICE.transferInterbank, body, o),
    transferStatus: (body, o) =>
      call('POST', 'transfer/status', SERVICE.transferStatus, { ...body, serviceCode: body.serviceCode ?? '18' }, o),
    payDebit: (body, o) => call('POST', 'debit/payment-host-to-host', SERVICE.debitPay, body, o),
    debitStatus: (body, o) => call('POST', 'debit/status', SERVICE.debitStatus, { ...body, serviceCode: '54' }, o),
    cancelDebit: (body, o) => call('POST', 'debit/cancel', SERVICE.debitCancel, body, o),
    refundDebit: (body, o) => call('POST', 'debit/refund', SERVICE.debitRefund, body, o),
    bindAccount: (body, o) => call('POST', 'registration-account-binding', SERVICE.accountBinding, body, o),
    unbindAccount: (body, o) => call('POST', 'registration-account-unbinding', SERVICE.accountUnbinding, body, o),
  };
}

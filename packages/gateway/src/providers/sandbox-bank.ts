import { createHmac, randomInt, randomUUID } from 'node:crypto';
import {
  formatJakartaTimestamp,
  HEADER,
  HEADER_DISPLAY,
  isJsonObject,
  mediaType,
  parseJsonBody,
  parseSnapTimestamp,
  serviceStringToSign,
  snapError,
  successCode,
  tokenStringToSign,
  verifyHmacSha256,
  verifyHmacSha512,
} from '@snapgate/snap';
import type { Clock } from '../clock.ts';
import { createFieldReader } from '../payments/fields.ts';
import type { SandboxTransferRecord } from '../records/payout-records.ts';
import type { ProviderRecord } from '../records/provider-records.ts';
import type { Store } from '../store/store.ts';
import { signJwt, verifyJwt } from '../tokens/jwt.ts';
import { activeSecrets } from '../tokens/token-service.ts';
import { SANDBOX_BANK_CODE, sandboxProviderId } from './sandbox-providers.ts';
import {
  ACCOUNT_NO,
  type InquiryService,
  TRANSFER_STATUS_DESC,
  type TransferCreditService,
  type TransferService,
} from './transfer-credit.ts';

// The built-in sandbox bank as a payout bank (sandbox mode): a SNAP Transfer Credit server of its own,
// served by the gateway over HTTP under SANDBOX_BANK_PREFIX, with its own B2B token and signature
// checks, so that a sandbox payout goes through the same door as one at a real bank. snapgate is its
// only customer, known by the sandbox bank provider's client key and secret (the same pair the
// sandbox bank signs its own calls to snapgate with: it is the gateway talking to itself).
//
// The beneficiary's account number decides, whatever its bank code: ending 000 does not exist;
// ending 111 is paid at the next status query, 222 fails then; any other is paid at once.

/** Where the sandbox bank answers; apart from snapgate's own SNAP API (its disbursements come later). */
export const SANDBOX_BANK_PREFIX = '/sandbox-bank/api/snap/v1.0';
export const SANDBOX_BANK_TOKEN_PATH = `${SANDBOX_BANK_PREFIX}/access-token/b2b`;
/** The operator's account at the sandbox bank, the money's source. */
export const SANDBOX_SOURCE_ACCOUNT_NO = '9990000000001';
/** The SNAP standard's B2B token service code (a bank's, not this gateway's own 71). */
export const SANDBOX_TOKEN_SERVICE = '73';
const TOKEN_TTL_SEC = 900;
const MANDATORY_TOKEN = [HEADER.contentType, HEADER.clientKey, HEADER.timestamp, HEADER.signature] as const;
const MANDATORY_CALL = [
  HEADER.contentType,
  HEADER.timestamp,
  HEADER.signature,
  HEADER.partnerId,
  HEADER.externalId,
  HEADER.channelId,
] as const;
const EXTERNAL_ID = /^[A-Za-z0-9-]{1,64}$/;
const REFERENCE = { required: true, max: 64 } as const;

/** One HTTP request to the sandbox bank, as received. */
export interface BankRequest {
  method: string;
  /** The request target exactly as sent (the signature covers it). */
  url: string;
  header(name: string): string | undefined;
  rawBody: Buffer;
}

/** What the sandbox bank answers: a SNAP body, with its HTTP status and headers. */
export interface BankAnswer {
  httpStatus: number;
  headers?: Record<string, string>;
  body: Record<string, unknown>;
}

export interface SandboxBankDeps {
  store: Store;
  clock: Clock;
  /** The gateway's token key; the sandbox bank signs its own tokens with a key derived from it. */
  gatewayKey: Buffer;
  clockSkewSec: number;
}

/** The account number's last digits decide what happens to it. */
type AccountFate = 'missing' | 'pending-then-paid' | 'pending-then-failed' | 'paid';
function fateOf(accountNo: string): AccountFate {
  if (accountNo.endsWith('000')) return 'missing';
  if (accountNo.endsWith('111')) return 'pending-then-paid';
  if (accountNo.endsWith('222')) return 'pending-then-failed';
  return 'paid';
}

const answer = (httpStatus: number, body: Record<string, unknown>): BankAnswer => ({ httpStatus, body });
const notAnAccount = (svc: string) =>
  answer(404, { responseCode: `404${svc}11`, responseMessage: 'Invalid Card/Account/Customer [Account Not Found]' });
/** The bank's own reference of a transfer or an inquiry: its code, the time, and chance. */
const newBankReference = (nowMs: number) =>
  `${SANDBOX_BANK_CODE}${nowMs}${String(randomInt(1_000_000)).padStart(6, '0')}`;

export function createSandboxBank({ store, clock, gatewayKey, clockSkewSec }: SandboxBankDeps) {
  // Its own key: a token of the sandbox bank is never a token of the gateway's SNAP API.
  const tokenKey = createHmac('sha256', gatewayKey).update('snapgate sandbox bank tokens').digest();
  const isInWindow = (ms: number) => Math.abs(clock.now() - ms) <= clockSkewSec * 1000;

  async function customer(): Promise<ProviderRecord> {
    const p = await store.findProviderById(await sandboxProviderId(store, 'bank'));
    if (!p) throw new TypeError('the sandbox bank is missing');
    return p;
  }

  function headersOf(request: BankRequest, svc: string, mandatory: readonly string[]) {
    for (const name of mandatory) {
      if (!request.header(name)) throw snapError('INVALID_MANDATORY_FIELD', svc, { field: HEADER_DISPLAY[name] });
    }
    if (mediaType(request.header(HEADER.contentType) as string) !== 'application/json') {
      throw snapError('INVALID_FIELD_FORMAT', svc, { field: 'Content-Type' });
    }
    const timestamp = request.header(HEADER.timestamp) as string;
    const timestampMs = parseSnapTimestamp(timestamp);
    if (timestampMs === undefined) throw snapError('INVALID_FIELD_FORMAT', svc, { field: 'X-TIMESTAMP' });
    return { timestamp, timestampMs };
  }

  function bodyOf(request: BankRequest, svc: string): Record<string, unknown> {
    const body = parseJsonBody(request.rawBody);
    if (!isJsonObject(body)) throw snapError('BAD_REQUEST', svc);
    return body;
  }

  /**
   * The checks of a signed call, in the order of snapgate's own SNAP API: token, headers, timestamp
   * window, partner, HMAC-SHA512 over the raw bytes; then the body.
   */
  async function authenticate(request: BankRequest, svc: string): Promise<Record<string, unknown>> {
    const auth = request.header(HEADER.authorization);
    const accessToken = auth ? /^bearer +(.+)$/i.exec(auth)?.[1]?.trim() : undefined;
    const claims = accessToken ? verifyJwt(accessToken, tokenKey) : undefined;
    const client = await customer();
    const now = clock.now();
    if (!accessToken || !claims || claims.sub !== client.clientKey || claims.exp * 1000 <= now) {
      throw snapError('INVALID_TOKEN', svc);
    }
    const { timestamp, timestampMs } = headersOf(request, svc, MANDATORY_CALL);
    if (!EXTERNAL_ID.test(request.header(HEADER.externalId) as string)) {
      throw snapError('INVALID_FIELD_FORMAT', svc, { field: 'X-EXTERNAL-ID' });
    }
    if (!isInWindow(timestampMs)) throw snapError('UNAUTHORIZED', svc, { reason: 'Timestamp Out Of Range' });
    if (request.header(HEADER.partnerId) !== client.clientKey) {
      throw snapError('UNAUTHORIZED', svc, { reason: 'Unknown Partner' });
    }
    const data = serviceStringToSign({
      method: request.method,
      path: request.url,
      accessToken,
      rawBody: request.rawBody,
      timestamp,
    });
    const signature = request.header(HEADER.signature) as string;
    if (!activeSecrets(client, now).some((secret) => verifyHmacSha512(secret, data, signature))) {
      throw snapError('UNAUTHORIZED', svc, { reason: 'Invalid Signature' });
    }
    return bodyOf(request, svc);
  }

  /** 15 and 16: the account's holder, `SANDBOX <last 4 digits>`, or 404 xx11 for an account ending 000. */
  function inquire(svc: InquiryService, body: Record<string, unknown>): BankAnswer {
    const f = createFieldReader(body, svc);
    const partnerReferenceNo = f.str('partnerReferenceNo', { max: 64 });
    const beneficiaryBankCode = svc === '16' ? f.str('beneficiaryBankCode', { required: true, max: 11 }) : undefined;
    const accountNo = f.str('beneficiaryAccountNo', { required: true, pattern: ACCOUNT_NO }) as string;
    if (fateOf(accountNo) === 'missing') return notAnAccount(svc);
    return answer(200, {
      responseCode: successCode(svc),
      responseMessage: 'Successful',
      referenceNo: newBankReference(clock.now()),
      ...(partnerReferenceNo === undefined ? {} : { partnerReferenceNo }),
      beneficiaryAccountName: `SANDBOX ${accountNo.slice(-4)}`,
      beneficiaryAccountNo: accountNo,
      ...(beneficiaryBankCode === undefined ? {} : { beneficiaryBankCode }),
      currency: 'IDR',
    });
  }

  /**
   * 17 and 18: paid at once (200), or taken and pending (202) for accounts ending 111 and 222. One
   * transfer per partnerReferenceNo: a repeat answers the first answer again.
   */
  async function transfer(svc: TransferService, body: Record<string, unknown>): Promise<BankAnswer> {
    const f = createFieldReader(body, svc);
    const partnerReferenceNo = f.str('partnerReferenceNo', REFERENCE) as string;
    const amount = f.money('amount', { required: true, positive: true }) as { value: string; currency: 'IDR' };
    const beneficiaryAccountNo = f.str('beneficiaryAccountNo', { required: true, pattern: ACCOUNT_NO }) as string;
    const beneficiaryBankCode =
      svc === '18' ? (f.str('beneficiaryBankCode', { required: true, max: 11 }) as string) : SANDBOX_BANK_CODE;
    if (svc === '18') f.str('beneficiaryAccountName', { required: true, max: 100 });
    const sourceAccountNo = f.str('sourceAccountNo', { required: true, max: 19 }) as string;
    const transactionDate = f.dateTimeAsSent('transactionDate', { required: true }) as string;
    if (sourceAccountNo !== SANDBOX_SOURCE_ACCOUNT_NO)
      throw snapError('INVALID_FIELD_FORMAT', svc, { field: 'sourceAccountNo' });
    const first = await store.findSandboxTransfer({ partnerReferenceNo });
    if (first) return answer(first.httpStatus, JSON.parse(first.responseBody) as Record<string, unknown>);
    const fate = fateOf(beneficiaryAccountNo);
    if (fate === 'missing') return notAnAccount(svc);
    const isPending = fate !== 'paid';
    const referenceNo = newBankReference(clock.now());
    const httpStatus = isPending ? 202 : 200;
    const responseBody = {
      responseCode: `${httpStatus}${svc}00`,
      responseMessage: isPending ? 'Request In Progress' : 'Successful',
      referenceNo,
      partnerReferenceNo,
      amount,
      beneficiaryAccountNo,
      ...(svc === '18' ? { beneficiaryBankCode } : {}),
      sourceAccountNo,
      transactionDate,
    };
    const now = clock.now();
    const kept = await store.insertSandboxTransfer({
      partnerReferenceNo,
      referenceNo,
      serviceCode: svc,
      beneficiaryBankCode,
      beneficiaryAccountNo,
      amount: amount.value,
      status: isPending ? '03' : '00',
      outcome: fate === 'pending-then-failed' ? '06' : '00',
      httpStatus,
      responseBody: JSON.stringify(responseBody),
      createdAt: now,
      updatedAt: now,
    });
    // Of two at once with one partnerReferenceNo, the one kept answers both.
    return answer(kept.httpStatus, JSON.parse(kept.responseBody) as Record<string, unknown>);
  }

  /** 36: where a transfer stands; a pending one ends at this query (111 paid, 222 failed). */
  async function status(body: Record<string, unknown>): Promise<BankAnswer> {
    const svc = '36';
    const f = createFieldReader(body, svc);
    const serviceCode = f.str('serviceCode', { required: true, oneOf: ['17', '18'] }) as string;
    const originalPartnerReferenceNo = f.str('originalPartnerReferenceNo', { max: 64 });
    const originalReferenceNo = f.str('originalReferenceNo', { max: 64 });
    const originalExternalId = f.str('originalExternalId', { max: 64 });
    if (originalPartnerReferenceNo === undefined && originalReferenceNo === undefined) {
      throw snapError('INVALID_MANDATORY_FIELD', svc, { field: 'originalPartnerReferenceNo' });
    }
    const found = await store.findSandboxTransfer(
      originalPartnerReferenceNo === undefined
        ? { referenceNo: originalReferenceNo as string }
        : { partnerReferenceNo: originalPartnerReferenceNo },
    );
    const isSame =
      found?.serviceCode === serviceCode &&
      (originalReferenceNo === undefined || originalReferenceNo === found.referenceNo);
    if (!found || !isSame) return answer(404, { ...snapError('TRANSACTION_NOT_FOUND', svc).toBody() });
    const t =
      found.status === '03'
        ? ((await store.endSandboxTransfer(found.partnerReferenceNo, clock.now())) as SandboxTransferRecord)
        : found;
    const first = JSON.parse(t.responseBody) as Record<string, unknown>;
    return answer(200, {
      responseCode: successCode(svc),
      responseMessage: 'Successful',
      originalReferenceNo: t.referenceNo,
      originalPartnerReferenceNo: t.partnerReferenceNo,
      ...(originalExternalId === undefined ? {} : { originalExternalId }),
      serviceCode: t.serviceCode,
      transactionDate: first.transactionDate,
      amount: { value: t.amount, currency: 'IDR' },
      beneficiaryAccountNo: t.beneficiaryAccountNo,
      beneficiaryBankCode: t.beneficiaryBankCode,
      previousResponseCode: first.responseCode,
      referenceNumber: t.referenceNo,
      sourceAccountNo: first.sourceAccountNo,
      latestTransactionStatus: t.status,
      transactionStatusDesc: TRANSFER_STATUS_DESC[t.status],
    });
  }

  return {
    /** `POST <prefix>/access-token/b2b`: a token for snapgate, signed HMAC-SHA256 with its secret. */
    async issueToken(request: BankRequest): Promise<BankAnswer> {
      const svc = SANDBOX_TOKEN_SERVICE;
      const { timestamp, timestampMs } = headersOf(request, svc, MANDATORY_TOKEN);
      const body = bodyOf(request, svc);
      createFieldReader(body, svc).str('grantType', { required: true, oneOf: ['client_credentials'] });
      const client = await customer();
      const clientKey = request.header(HEADER.clientKey) as string;
      if (clientKey !== client.clientKey) throw snapError('UNAUTHORIZED', svc, { reason: 'Unknown Client' });
      if (!isInWindow(timestampMs)) throw snapError('UNAUTHORIZED', svc, { reason: 'Timestamp Out Of Range' });
      const now = clock.now();
      const data = tokenStringToSign(clientKey, timestamp);
      const signature = request.header(HEADER.signature) as string;
      if (!activeSecrets(client, now).some((secret) => verifyHmacSha256(secret, data, signature))) {
        throw snapError('UNAUTHORIZED', svc, { reason: 'Invalid Signature' });
      }
      const iat = Math.floor(now / 1000);
      const accessToken = signJwt(
        { sub: clientKey, iat, exp: iat + TOKEN_TTL_SEC, jti: randomUUID(), sv: client.secretVersion },
        tokenKey,
      );
      return {
        httpStatus: 200,
        headers: { 'X-TIMESTAMP': formatJakartaTimestamp(now), 'X-CLIENT-KEY': clientKey },
        body: {
          responseCode: successCode(svc),
          responseMessage: 'Successful',
          accessToken,
          tokenType: 'Bearer',
          expiresIn: TOKEN_TTL_SEC,
        },
      };
    },

    /** One Transfer Credit operation, signed by snapgate as a SNAP client. */
    async serve(svc: TransferCreditService, request: BankRequest): Promise<BankAnswer> {
      const body = await authenticate(request, svc);
      if (svc === '15' || svc === '16') return inquire(svc, body);
      if (svc === '17' || svc === '18') return transfer(svc, body);
      return status(body);
    },
  };
}

export type SandboxBank = ReturnType<typeof createSandboxBank>;

import { formatJakartaTimestamp } from '@snapgate/snap';
import type { Clock } from '../clock.ts';
import type { Mode } from '../config.ts';
import { conflict, refused, unavailable } from '../domain-error.ts';
import { newExternalId } from '../payments/upstream.ts';
import type { Store } from '../store/store.ts';
import { SANDBOX_BANK_PREFIX, SANDBOX_BANK_TOKEN_PATH, SANDBOX_SOURCE_ACCOUNT_NO } from './sandbox-bank.ts';
import { sandboxProviderId } from './sandbox-providers.ts';
import { type SnapAnswer, SnapCallFailed, SnapCallTimeout, type SnapClient, type SnapTarget } from './snap-client.ts';
import {
  type InquiryService,
  inquiryServiceFor,
  TRANSFER_CREDIT_PATHS,
  type TransferCreditService,
  type TransferService,
  transferServiceFor,
} from './transfer-credit.ts';
import { targetOf, textOf } from './upstream-call.ts';

/** The bank snapgate pays out through, as a SNAP client of it (docs/payouts.md). */
export interface PayoutBank {
  providerId: string;
  name: string;
  bankCode: string;
  /** The operator's account the money leaves from. */
  sourceAccountNo: string;
  /** The built-in sandbox bank (sandbox mode, no other payout bank). */
  isSandbox: boolean;
  target: SnapTarget;
}

/** One request to the payout bank and what came back, as a payout keeps it: no secret, no signature. */
export interface BankExchange {
  at: number;
  service: TransferCreditService;
  request: Record<string, unknown>;
  /** The answer's HTTP status; null when none came. */
  status: number | null;
  /** The answer's SNAP body; null when there was none (a timeout, a network failure, not SNAP). */
  response: Record<string, unknown> | null;
  /** Why there is no SNAP answer. */
  error?: string;
}

export interface BankAccount {
  bankCode: string;
  accountNo: string;
}

/** `refused`: the bank said no (4xx); `unknown`: no usable answer (timeout, 5xx, not SNAP). */
export type InquiryOutcome =
  | { outcome: 'found'; service: InquiryService; accountName: string; exchange: BankExchange }
  | {
      outcome: 'refused';
      service: InquiryService;
      responseCode: string;
      responseMessage: string;
      exchange: BankExchange;
    }
  | { outcome: 'unknown'; service: InquiryService; exchange: BankExchange };

export interface TransferRequest {
  /** One per transfer, ever: the bank takes one transfer per partnerReferenceNo. */
  partnerReferenceNo: string;
  /** IDR, two fraction digits. */
  amount: string;
  beneficiary: BankAccount & { name: string };
  remark?: string;
  /** X-EXTERNAL-ID; a new one when not given. */
  externalId?: string;
}

/**
 * `success`: paid; `pending`: taken, the status query (36) tells the end; `refused`: not taken, nothing
 * was sent; `unknown`: it may or may not have been taken (timeout, 5xx, a duplicate): never send it
 * again blindly, ask its status.
 */
export interface TransferOutcome {
  outcome: 'success' | 'pending' | 'refused' | 'unknown';
  service: TransferService;
  /** The bank's reference of the transfer, when it gave one. */
  referenceNo?: string;
  responseCode?: string;
  responseMessage?: string;
  /** As sent: the status query names it. */
  transactionDate: string;
  exchange: BankExchange;
}

export interface StatusQuery {
  service: TransferService;
  partnerReferenceNo: string;
  referenceNo?: string | undefined;
  transactionDate?: string | undefined;
  amount?: string | undefined;
}

/** `failed`: the transfer ended without paying (also refunded or canceled at the bank). */
export interface StatusOutcome {
  outcome: 'success' | 'pending' | 'failed' | 'not-found' | 'unknown';
  latestTransactionStatus?: string;
  referenceNo?: string;
  exchange: BankExchange;
}

export interface PayoutBankDeps {
  store: Store;
  client: SnapClient;
  clock: Clock;
  mode: Mode;
  /** Bounds one exchange, token included (SNAPGATE_UPSTREAM_TIMEOUT_MS). */
  timeoutMs: number;
  /** Where this gateway answers (sandbox mode: the sandbox bank is there). */
  selfUrl: () => string;
}

/** ASPI answers transfers 409 xx01 for a partnerReferenceNo it took before, and 404 xx18 for one inconsistent with it. */
const isMaybeTaken = (a: SnapAnswer) =>
  a.httpStatus === 409 || (a.httpStatus === 404 && textOf(a.body.responseCode).endsWith('18'));

/**
 * snapgate as a client of the payout bank, SNAP Transfer Credit (ASPI): account inquiry (15 inside
 * the bank, 16 at another), transfer (17, 18) and transfer status (36), under the bank's outbound
 * `pathPrefix`, through the gateway's one SNAP client (its token, signatures and timeouts). Each call
 * answers an outcome and the exchange as it happened; none is retried here.
 */
export function createPayoutBank({ store, client, clock, mode, timeoutMs, selfUrl }: PayoutBankDeps) {
  async function exchange(
    bank: PayoutBank,
    service: TransferCreditService,
    body: Record<string, unknown>,
    externalId = newExternalId(),
  ): Promise<{ answer?: SnapAnswer; exchange: BankExchange }> {
    const at = clock.now();
    const request = { path: TRANSFER_CREDIT_PATHS[service], body, externalId };
    try {
      const answer = await client.call(bank.target, request, { timeoutMs });
      return { answer, exchange: { at, service, request: body, status: answer.httpStatus, response: answer.body } };
    } catch (e) {
      if (!(e instanceof SnapCallTimeout) && !(e instanceof SnapCallFailed)) throw e;
      const status = e instanceof SnapCallFailed ? (e.httpStatus ?? null) : null;
      return { exchange: { at, service, request: body, status, response: null, error: e.message } };
    }
  }

  const bank = {
    /** The payout bank now: the provider with payouts (if active), else the sandbox bank in sandbox mode. */
    async current(): Promise<PayoutBank | undefined> {
      const p = await store.findPayoutBank();
      if (p) {
        // A payout bank disabled pays nothing; the sandbox bank does not stand in for it.
        if (p.status !== 'active' || !p.outbound || !p.payouts) return undefined;
        const { sourceAccountNo } = p.payouts;
        return {
          providerId: p.id,
          name: p.name,
          bankCode: p.bankCode,
          sourceAccountNo,
          isSandbox: false,
          target: targetOf(p),
        };
      }
      if (mode !== 'sandbox') return undefined;
      const sandbox = await store.findProviderById(await sandboxProviderId(store, 'bank'));
      // Disabled, the sandbox bank pays nothing either.
      if (sandbox?.status !== 'active') return undefined;
      return {
        providerId: sandbox.id,
        name: sandbox.name,
        bankCode: sandbox.bankCode,
        sourceAccountNo: SANDBOX_SOURCE_ACCOUNT_NO,
        isSandbox: true,
        target: {
          id: 'sandbox-payout-bank',
          baseUrl: selfUrl(),
          clientKey: sandbox.clientKey,
          clientSecret: sandbox.clientSecret,
          privateKeyPem: null,
          partnerId: sandbox.clientKey,
          channelId: '95221',
          tokenPath: SANDBOX_BANK_TOKEN_PATH,
          pathPrefix: SANDBOX_BANK_PREFIX,
        },
      };
    },

    /** Who holds an account: 15 when it is at the payout bank itself, else 16. */
    async inquire(at: PayoutBank, account: BankAccount, partnerReferenceNo?: string): Promise<InquiryOutcome> {
      const service = inquiryServiceFor(at.bankCode, account.bankCode);
      const ref = partnerReferenceNo === undefined ? {} : { partnerReferenceNo };
      const body =
        service === '15'
          ? { ...ref, beneficiaryAccountNo: account.accountNo }
          : { ...ref, beneficiaryBankCode: account.bankCode, beneficiaryAccountNo: account.accountNo };
      const { answer, exchange: ex } = await exchange(at, service, body);
      const name = textOf(answer?.body.beneficiaryAccountName).trim();
      if (answer?.httpStatus === 200 && answer.body.responseCode === `200${service}00` && name !== '') {
        return { outcome: 'found', service, accountName: name, exchange: ex };
      }
      if (answer && answer.httpStatus >= 400 && answer.httpStatus < 500) {
        const { responseCode, responseMessage } = answer.body;
        return {
          outcome: 'refused',
          service,
          responseCode: textOf(responseCode),
          responseMessage: textOf(responseMessage),
          exchange: ex,
        };
      }
      return { outcome: 'unknown', service, exchange: ex };
    },

    /** Sends money from the source account: 17 to an account at the payout bank, else 18. */
    async transfer(at: PayoutBank, t: TransferRequest): Promise<TransferOutcome> {
      const service = transferServiceFor(at.bankCode, t.beneficiary.bankCode);
      const transactionDate = formatJakartaTimestamp(clock.now());
      const body: Record<string, unknown> = {
        partnerReferenceNo: t.partnerReferenceNo,
        amount: { value: t.amount, currency: 'IDR' },
        ...(service === '18'
          ? { beneficiaryAccountName: t.beneficiary.name, beneficiaryBankCode: t.beneficiary.bankCode }
          : {}),
        beneficiaryAccountNo: t.beneficiary.accountNo,
        sourceAccountNo: at.sourceAccountNo,
        transactionDate,
        ...(t.remark === undefined ? {} : { remark: t.remark }),
      };
      const { answer, exchange: ex } = await exchange(at, service, body, t.externalId);
      const said = answer
        ? {
            responseCode: textOf(answer.body.responseCode),
            responseMessage: textOf(answer.body.responseMessage),
            ...(textOf(answer.body.referenceNo) ? { referenceNo: textOf(answer.body.referenceNo) } : {}),
          }
        : {};
      const outcome: TransferOutcome['outcome'] = !answer
        ? 'unknown'
        : answer.httpStatus === 200 && answer.body.responseCode === `200${service}00`
          ? 'success'
          : answer.httpStatus === 202 && textOf(answer.body.responseCode).startsWith(`202${service}`)
            ? 'pending'
            : answer.httpStatus >= 400 && answer.httpStatus < 500 && !isMaybeTaken(answer)
              ? 'refused'
              : 'unknown';
      return { outcome, service, transactionDate, ...said, exchange: ex };
    },

    /** Where a transfer stands (36), by its partnerReferenceNo (and the bank's reference, when known). */
    async status(at: PayoutBank, q: StatusQuery): Promise<StatusOutcome> {
      const body: Record<string, unknown> = {
        originalPartnerReferenceNo: q.partnerReferenceNo,
        ...(q.referenceNo === undefined ? {} : { originalReferenceNo: q.referenceNo }),
        serviceCode: q.service,
        ...(q.transactionDate === undefined ? {} : { transactionDate: q.transactionDate }),
        ...(q.amount === undefined ? {} : { amount: { value: q.amount, currency: 'IDR' } }),
      };
      const { answer, exchange: ex } = await exchange(at, '36', body);
      if (answer?.httpStatus === 404 && answer.body.responseCode === '4043601') {
        return { outcome: 'not-found', exchange: ex };
      }
      if (answer?.httpStatus !== 200 || answer.body.responseCode !== '2003600')
        return { outcome: 'unknown', exchange: ex };
      const latest = textOf(answer.body.latestTransactionStatus);
      const outcome: StatusOutcome['outcome'] =
        latest === '00'
          ? 'success'
          : ['01', '02', '03'].includes(latest)
            ? 'pending'
            : ['04', '05', '06'].includes(latest)
              ? 'failed'
              : latest === '07'
                ? 'not-found'
                : 'unknown';
      const referenceNo = textOf(answer.body.originalReferenceNo);
      return { outcome, latestTransactionStatus: latest, ...(referenceNo ? { referenceNo } : {}), exchange: ex };
    },

    /**
     * A merchant's bank account as the payout bank knows it: the holder's name and when it answered.
     * No payout bank: conflict; the bank refuses: refused, with its code; no answer: unavailable.
     */
    async verifyAccount(account: BankAccount): Promise<{ verifiedName: string; verifiedAt: number }> {
      const at = await bank.current();
      if (!at) {
        throw conflict('there is no active payout bank to verify the account at: make a bank provider the payout bank');
      }
      const r = await bank.inquire(at, account);
      if (r.outcome === 'found') return { verifiedName: r.accountName, verifiedAt: r.exchange.at };
      if (r.outcome === 'refused') {
        const said = `${r.responseCode} ${r.responseMessage}`;
        throw refused(
          `the payout bank refused the account inquiry (${r.service}): ${said}`,
          [`payoutAccount: the payout bank refused the account: ${said}`],
          { responseCode: r.responseCode, responseMessage: r.responseMessage },
        );
      }
      throw unavailable(
        `the payout bank gave no answer to the account inquiry (${r.service}): ${r.exchange.error ?? `HTTP ${r.exchange.status}`}; try again`,
      );
    },
  };
  return bank;
}

export type PayoutBankClient = ReturnType<typeof createPayoutBank>;

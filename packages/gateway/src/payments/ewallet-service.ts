import { formatJakartaTimestamp, type Money, snapError, TRANSACTION_STATUS } from '@snapgate/snap';
import type { AddressGuard } from '../address-guard.ts';
import type { Mode } from '../config.ts';
import { callbackUrlProblemResolved } from '../merchants/callback-url.ts';
import type { ProviderRecord } from '../records/provider-records.ts';
import { type EwalletTransaction, type TransactionRecord, UniqueViolation } from '../records/records.ts';
import type { Store } from '../store/store.ts';
import { cancelTransaction } from './cancel.ts';
import { checkoutUrlOf, isDrawnAgain, newCheckoutId, normalizedUrl, readAdditionalInfo } from './checkout-link.ts';
import { feeSnapshotOf } from './fees.ts';
import { createFieldReader, type FieldReader } from './fields.ts';
import { type RecordFor, type SnapResponse, snapOk } from './idempotency.ts';
import { newBillNumber, newReferenceNo } from './ids.ts';
import { payerOf } from './notification-body.ts';
import { findOwnTransaction } from './own-transaction.ts';
import { refundTransaction } from './refund.ts';
import { DEBIT_CANCEL, DEBIT_PAY, DEBIT_REFUND, DEBIT_STATUS } from './snap-fields.ts';
import type { MerchantRequest } from './snap-request.ts';
import type { StatusChanger } from './status-change.ts';

const DEFAULT_VALIDITY_MS = 30 * 60_000;

/** Where the sandbox wallet's page for a payment is (the stand-in for the wallet's app), under its checkout's. */
const sandboxWalletUrlOf = (checkoutUrl: string): string => `${checkoutUrl}/wallet`;

export interface EwalletServiceDeps {
  store: Store;
  changer: StatusChanger;
  /** The gateway's public address, read when a payment is made. */
  publicUrl: () => string;
  mode?: Mode;
  /** Where callbacks may go (a `PAY_NOTIFY` url is held to it as every callback URL is); default: the mode's. */
  guard?: AddressGuard;
}

/**
 * `urlParams` as a payment keeps them: PAY_RETURN as its checkout's returnUrl (the rules of
 * `additionalInfo.returnUrl`, which it replaces), PAY_NOTIFY as its callbacks' URL (the rules of a
 * merchant's callback URL: docs/protocol.md#where-callbacks-go).
 */
async function readUrlParams(f: FieldReader, svc: string, mode: Mode | undefined, guard: AddressGuard | Mode) {
  const urls: { returnUrl?: string; notifyUrl?: string } = {};
  const count = f.list('urlParams', DEBIT_PAY.urlParams);
  for (let i = 0; i < count; i++) {
    const field = `urlParams[${i}]`;
    const url = f.str(`${field}.url`, DEBIT_PAY['urlParams[].url']) as string;
    const type = f.str(`${field}.type`, DEBIT_PAY['urlParams[].type']) as 'PAY_RETURN' | 'PAY_NOTIFY';
    f.str(`${field}.isDeeplink`, DEBIT_PAY['urlParams[].isDeeplink']);
    const key = type === 'PAY_RETURN' ? 'returnUrl' : 'notifyUrl';
    // One of each: two of a type would leave which one counts to chance.
    if (urls[key] !== undefined) throw snapError('INVALID_FIELD_FORMAT', svc, { field: `${field}.type` });
    const normal = normalizedUrl(url, `${field}.url`, svc, mode);
    if (key === 'notifyUrl' && (await callbackUrlProblemResolved(normal, guard)) !== undefined) {
      throw snapError('INVALID_FIELD_FORMAT', svc, { field: `${field}.url` });
    }
    urls[key] = normal;
  }
  return urls;
}

/** The one `payOptionDetails` entry: the wallet, its amount equal to the payment's. */
function readPayOption(f: FieldReader, svc: string, amount: Money): string {
  f.list('payOptionDetails', DEBIT_PAY.payOptionDetails);
  f.str('payOptionDetails[0].payMethod', DEBIT_PAY['payOptionDetails[].payMethod']);
  const payOption = f.str('payOptionDetails[0].payOption', DEBIT_PAY['payOptionDetails[].payOption']) as string;
  const trans = f.money('payOptionDetails[0].transAmount', DEBIT_PAY['payOptionDetails[].transAmount']) as Money;
  if (trans.value !== amount.value) {
    throw snapError('INVALID_FIELD_FORMAT', svc, { field: 'payOptionDetails[0].transAmount' });
  }
  return payOption;
}

/**
 * E-wallet payments over SNAP Direct Debit, as merchants call them (docs/ewallets.md): 54 makes a
 * payment the payer authorises at the wallet's page, 55 tells where it stands, 57 cancels an
 * unpaid one, 58 refunds in parts. The wallet's notify (inbound-service.ts) pays or declines it.
 */
export function createEwalletService(deps: EwalletServiceDeps) {
  const { store, publicUrl } = deps;

  /** The wallet that serves `payOption` for this gateway's merchants; refused when none does. */
  async function walletOf(svc: string, payOption: string): Promise<ProviderRecord> {
    const wallet = await store.findWallet(payOption);
    // The sandbox wallet pays nothing real: never in production. A wallet of the operator's own is
    // called over SNAP (its outbound settings), which this version does not do yet.
    const isUsable = wallet?.isSandbox && deps.mode !== 'production';
    if (!isUsable) {
      throw snapError('FEATURE_NOT_ALLOWED', svc, { reason: 'Pay Option Not Available', detail: { payOption } });
    }
    return wallet;
  }

  /**
   * A cancel or a refund happens at the wallet the payment was made in first: this version reaches
   * only the sandbox wallet, which moves no money (and never in production, where a payment of it
   * left from sandbox days must not be refunded as if money had moved). Whether a wallet took it.
   */
  async function atWallet(svc: string, txn: TransactionRecord): Promise<boolean> {
    const providerId = txn.kind === 'ewallet' ? txn.details.providerId : undefined;
    const wallet = providerId ? await store.findProviderById(providerId) : undefined;
    if (!wallet?.isSandbox || deps.mode === 'production') {
      throw snapError('FEATURE_NOT_ALLOWED', svc, { reason: 'Pay Option Not Available', detail: { providerId } });
    }
    return false;
  }

  const findOwn = (ctx: MerchantRequest, fields: typeof DEBIT_STATUS | typeof DEBIT_CANCEL | typeof DEBIT_REFUND) =>
    findOwnTransaction(deps, ctx, 'ewallet', fields) as Promise<EwalletTransaction>;

  return {
    /** Service 54: a payment the payer authorises at the wallet (`webRedirectUrl`). */
    async pay(ctx: MerchantRequest, recordFor: RecordFor): Promise<SnapResponse> {
      const svc = ctx.serviceCode;
      const f = createFieldReader(ctx.body, svc);
      const partnerReferenceNo = f.str('partnerReferenceNo', DEBIT_PAY.partnerReferenceNo) as string;
      const amount = f.money('amount', DEBIT_PAY.amount) as Money;
      const validUpTo = f.dateTime('validUpTo', DEBIT_PAY.validUpTo);
      if (validUpTo !== undefined && validUpTo <= ctx.now) {
        throw snapError('INVALID_FIELD_FORMAT', svc, { field: 'validUpTo' });
      }
      const urls = await readUrlParams(f, svc, deps.mode, deps.guard ?? deps.mode ?? 'sandbox');
      const payOption = readPayOption(f, svc, amount);
      // Kept as given, but a returnUrl in it is held to its rules; PAY_RETURN, when given, wins.
      const given = readAdditionalInfo(f, svc, deps.mode);
      const wallet = await walletOf(svc, payOption);
      const m = ctx.merchant;
      const expiresAt = validUpTo ?? ctx.now + DEFAULT_VALIDITY_MS;
      for (let attempt = 0; ; attempt++) {
        const referenceNo = newReferenceNo(ctx.now);
        const checkoutId = newCheckoutId();
        const checkoutUrl = checkoutUrlOf(publicUrl(), checkoutId);
        const webRedirectUrl = sandboxWalletUrlOf(checkoutUrl);
        const additionalInfo = urls.returnUrl === undefined ? given : { ...given, returnUrl: urls.returnUrl };
        const txn: EwalletTransaction = {
          referenceNo,
          merchantId: m.id,
          kind: 'ewallet',
          partnerReferenceNo,
          status: '01',
          statusDesc: TRANSACTION_STATUS['01'],
          seq: 1,
          amount: amount.value,
          currency: amount.currency,
          paidAmount: null,
          refundedAmount: '0.00',
          feeAmount: '0.00',
          virtualAccountNo: null,
          billNumber: newBillNumber(),
          expiresAt,
          paidAt: null,
          checkoutId,
          details: {
            payOption,
            providerId: wallet.id,
            webRedirectUrl,
            fee: feeSnapshotOf(m, 'ewallet'),
            ...(additionalInfo === undefined ? {} : { additionalInfo }),
            ...(urls.notifyUrl === undefined ? {} : { notifyUrl: urls.notifyUrl }),
          },
          createdAt: ctx.now,
          updatedAt: ctx.now,
        };
        const response = snapOk(svc, {
          referenceNo,
          partnerReferenceNo,
          webRedirectUrl,
          additionalInfo: { checkoutUrl },
        });
        try {
          await store.insertTransaction(txn, recordFor(response));
          return response;
        } catch (e) {
          if (e instanceof UniqueViolation && e.constraint.includes('partner_reference_no')) {
            throw snapError('DUPLICATE_PARTNER_REFERENCE_NO', svc, { detail: { partnerReferenceNo } });
          }
          // A referenceNo (or checkout id) collision is astronomically rare; draw both again once.
          if (e instanceof UniqueViolation && isDrawnAgain(e.constraint) && attempt === 0) continue;
          throw e;
        }
      }
    },

    /** Service 55: where a payment stands. */
    async status(ctx: MerchantRequest): Promise<SnapResponse> {
      const svc = ctx.serviceCode;
      const txn = await findOwn(ctx, DEBIT_STATUS);
      createFieldReader(ctx.body, svc).str('serviceCode', DEBIT_STATUS.serviceCode);
      const paid = txn.paidAt !== null;
      return snapOk(svc, {
        originalReferenceNo: txn.referenceNo,
        originalPartnerReferenceNo: txn.partnerReferenceNo,
        serviceCode: '54',
        latestTransactionStatus: txn.status,
        transactionStatusDesc: txn.statusDesc ?? TRANSACTION_STATUS[txn.status],
        amount: { value: txn.amount, currency: txn.currency },
        ...(paid ? { paidTime: formatJakartaTimestamp(txn.paidAt as number) } : {}),
        feeAmount: { value: txn.feeAmount, currency: txn.currency },
        additionalInfo: {
          payOption: txn.details.payOption,
          ...(paid
            ? { payerName: payerOf(txn).payerName, walletReferenceNo: txn.details.walletReferenceNo ?? '' }
            : {}),
        },
      });
    },

    /** Service 57: an unpaid payment is cancelled (01 → 05); a paid one is refunded instead. */
    async cancel(ctx: MerchantRequest, recordFor: RecordFor): Promise<SnapResponse> {
      const svc = ctx.serviceCode;
      const f = createFieldReader(ctx.body, svc);
      const txn = await findOwn(ctx, DEBIT_CANCEL);
      const reason = f.str('reason', DEBIT_CANCEL.reason);
      return cancelTransaction(deps, ctx, recordFor, { txn, reason, forward: (t) => atWallet(svc, t) });
    },

    /** Service 58: a refund, in parts, never more than was paid. */
    async refund(ctx: MerchantRequest, recordFor: RecordFor): Promise<SnapResponse> {
      const svc = ctx.serviceCode;
      const f = createFieldReader(ctx.body, svc);
      f.str('originalPartnerReferenceNo', DEBIT_REFUND.originalPartnerReferenceNo);
      const partnerRefundNo = f.str('partnerRefundNo', DEBIT_REFUND.partnerRefundNo) as string;
      const refundAmount = f.money('refundAmount', DEBIT_REFUND.refundAmount) as Money;
      const reason = f.str('reason', DEBIT_REFUND.reason) ?? null;
      const txn: TransactionRecord = await findOwn(ctx, DEBIT_REFUND);
      return refundTransaction(deps, ctx, recordFor, {
        txn,
        partnerRefundNo,
        refundAmount,
        reason,
        forward: (t) => atWallet(svc, t),
      });
    },
  };
}

export type EwalletService = ReturnType<typeof createEwalletService>;

import { formatJakartaTimestamp, type Money, snapError, TRANSACTION_STATUS } from '@snapgate/snap';
import type { AddressGuard } from '../address-guard.ts';
import type { Mode } from '../config.ts';
import type { Logger } from '../logger.ts';
import { callbackUrlProblemResolved } from '../merchants/callback-url.ts';
import type { AccountBinding } from '../records/binding-records.ts';
import type { ProviderRecord } from '../records/provider-records.ts';
import {
  type EwalletDetails,
  type EwalletTransaction,
  type TransactionRecord,
  UniqueViolation,
  type UpstreamRef,
} from '../records/records.ts';
import type { Store } from '../store/store.ts';
import type { BindingService } from './binding-service.ts';
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
import { linkFields, type MerchantRequest } from './snap-request.ts';
import type { StatusChanger } from './status-change.ts';
import {
  failIssued,
  keepIssued,
  newExternalId,
  RECONCILE_AFTER_MS,
  type UpstreamWallet,
  type WalletRedirect,
} from './upstream.ts';

const DEFAULT_VALIDITY_MS = 30 * 60_000;

/** Where the sandbox wallet's page for a payment is (the stand-in for the wallet's app), under its checkout's. */
const sandboxWalletUrlOf = (checkoutUrl: string): string => `${checkoutUrl}/wallet`;
/** The wallets' door of this gateway (service 56), under its public address. */
const NOTIFY_PATH = '/api/snap/v1.0/debit/notify';

export interface EwalletServiceDeps {
  store: Store;
  changer: StatusChanger;
  /** The gateway's public address, read when a payment is made. */
  publicUrl: () => string;
  mode?: Mode;
  /** Where callbacks may go (a `PAY_NOTIFY` url is held to it as every callback URL is); default: the mode's. */
  guard?: AddressGuard;
  /** Calls the wallets the operator connected (docs/ewallets.md#connecting-a-wallet). */
  wallets: UpstreamWallet;
  logger?: Logger;
  /** The bindings a payment may name by its customer token (docs/ewallets.md#account-binding). */
  bindings?: BindingService;
  /**
   * A bound payment is paid by its wallet without the payer (the sandbox wallet's debit of the bound
   * account): called once it is recorded, not awaited.
   */
  payBound?: (referenceNo: string, binding: AccountBinding) => Promise<unknown>;
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

  /**
   * The wallet that serves `payOption` for this gateway's merchants; refused when none does. The
   * sandbox wallet pays nothing real: never in production.
   */
  async function walletOf(svc: string, payOption: string): Promise<ProviderRecord> {
    const wallet = await store.findWallet(payOption);
    const isUsable = wallet !== undefined && (wallet.isSandbox ? deps.mode !== 'production' : wallet.outbound !== null);
    if (!isUsable) {
      throw snapError('FEATURE_NOT_ALLOWED', svc, { reason: 'Pay Option Not Available', detail: { payOption } });
    }
    return wallet;
  }

  /**
   * The wallet a payment was made in, to forward its cancel or refund to first (a connected wallet
   * takes it over SNAP; whether it took it). The sandbox wallet moves no money: it takes them outside
   * production only, where a payment of it left from sandbox days must not be refunded as if money
   * had moved.
   */
  async function atWallet(svc: string, txn: TransactionRecord, forward: (wallet: ProviderRecord) => Promise<void>) {
    const providerId = txn.kind === 'ewallet' ? txn.details.providerId : undefined;
    const wallet = providerId ? await store.findProviderById(providerId) : undefined;
    if (wallet?.outbound && !wallet.isSandbox) {
      await forward(wallet);
      return true;
    }
    if (!wallet?.isSandbox || deps.mode === 'production') {
      throw snapError('FEATURE_NOT_ALLOWED', svc, { reason: 'Pay Option Not Available', detail: { providerId } });
    }
    return false;
  }

  /** docs/upstream.md: recorded first, then made at the wallet (or failed: see failIssued). */
  async function payAtWallet(
    ctx: MerchantRequest,
    wallet: ProviderRecord,
    txn: EwalletTransaction,
    checkoutUrl: string,
    recordFor: RecordFor,
    binding: AccountBinding | undefined,
  ): Promise<SnapResponse> {
    // A bound payment carries the customer's token at the wallet, renewed there first if need be:
    // one it refuses leaves nothing recorded.
    const customerToken = binding ? await deps.bindings?.walletTokenFor(ctx, binding, wallet) : undefined;
    await store.insertTransaction(txn);
    let issued: WalletRedirect;
    try {
      const urls = { returnUrl: checkoutUrl, notifyUrl: `${publicUrl()}${NOTIFY_PATH}` };
      issued = await deps.wallets.pay(wallet, txn, ctx.serviceCode, urls, { requestId: ctx.requestId, customerToken });
      // A payer is sent there: in production over https only.
      if (deps.mode === 'production' && issued.webRedirectUrl?.startsWith('https:') === false) {
        throw snapError('EXTERNAL_SERVER_ERROR', ctx.serviceCode, { detail: { providerId: wallet.id, http: true } });
      }
    } catch (e) {
      await failIssued(deps.changer, txn, `wallet ${wallet.id}`, e as Error, ctx.now);
      // The wallet may hold a payment all the same (it timed out, or answered what cannot be used):
      // it is canceled there, so that no payer pays one the merchant was told failed. Not awaited:
      // the merchant's answer is due; a notify of it is refused here and kept in the inbound log.
      deps.wallets.cancel(wallet, txn, '57', 'upstream failed', ctx.requestId).catch((err: unknown) => {
        deps.logger?.warn({ err, referenceNo: txn.referenceNo, providerId: wallet.id }, 'cancel at the wallet failed');
      });
      throw e;
    }
    const { webRedirectUrl, appRedirectUrl, referenceNo } = issued;
    const response = snapOk(ctx.serviceCode, {
      referenceNo: txn.referenceNo,
      partnerReferenceNo: txn.partnerReferenceNo,
      // A bound payment has a page only when the wallet asks the payer there.
      ...(webRedirectUrl === undefined ? {} : { webRedirectUrl }),
      ...(appRedirectUrl === undefined ? {} : { appRedirectUrl }),
      additionalInfo: { checkoutUrl, ...(binding ? { bindingReferenceNo: binding.id } : {}) },
    });
    const details = (current: EwalletTransaction): EwalletDetails => ({
      ...current.details,
      webRedirectUrl: webRedirectUrl ?? '',
      ...(appRedirectUrl === undefined ? {} : { appRedirectUrl }),
      walletReferenceNo: current.details.walletReferenceNo ?? referenceNo ?? null,
      upstream: { ...(current.details.upstream as UpstreamRef), referenceNo },
    });
    await keepIssued(store, txn, ctx.now, details, recordFor(response));
    return response;
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
      // A payment that names a bound account (its customer token) is paid without a redirect.
      const binding = ctx.customerToken === undefined ? undefined : await deps.bindings?.boundFor(ctx, payOption);
      const wallet = await walletOf(svc, payOption);
      const m = ctx.merchant;
      const expiresAt = validUpTo ?? ctx.now + DEFAULT_VALIDITY_MS;
      for (let attempt = 0; ; attempt++) {
        const referenceNo = newReferenceNo(ctx.now);
        const checkoutId = newCheckoutId();
        const checkoutUrl = checkoutUrlOf(publicUrl(), checkoutId);
        // A connected wallet's page is known once it answers; the sandbox wallet's is the gateway's.
        const webRedirectUrl = wallet.isSandbox ? sandboxWalletUrlOf(checkoutUrl) : '';
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
          // A connected wallet's payment is settled with the wallet a minute past its validity, not
          // expired by our clock: its due time is that of the reconciliation (the validity is in details).
          expiresAt: wallet.isSandbox ? expiresAt : expiresAt + RECONCILE_AFTER_MS,
          paidAt: null,
          checkoutId,
          ...linkFields(ctx),
          details: {
            payOption,
            providerId: wallet.id,
            webRedirectUrl,
            ...(wallet.isSandbox
              ? {}
              : { upstream: { providerId: wallet.id, externalId: newExternalId(), validUntil: expiresAt } }),
            fee: feeSnapshotOf(m, 'ewallet'),
            ...(additionalInfo === undefined ? {} : { additionalInfo }),
            ...(urls.notifyUrl === undefined ? {} : { notifyUrl: urls.notifyUrl }),
            ...(binding ? { bindingId: binding.id } : {}),
          },
          createdAt: ctx.now,
          updatedAt: ctx.now,
        };
        try {
          if (!wallet.isSandbox) return await payAtWallet(ctx, wallet, txn, checkoutUrl, recordFor, binding);
          const response = snapOk(svc, {
            referenceNo,
            partnerReferenceNo,
            // A bound payment needs no page: its wallet debits the bound account.
            ...(binding ? {} : { webRedirectUrl }),
            additionalInfo: { checkoutUrl, ...(binding ? { bindingReferenceNo: binding.id } : {}) },
          });
          await store.insertTransaction(txn, recordFor(response));
          if (binding) {
            deps.payBound?.(referenceNo, binding).catch((err: unknown) => {
              deps.logger?.warn({ err, referenceNo }, 'the bound payment was not paid by its wallet');
            });
          }
          return response;
        } catch (e) {
          if (e instanceof UniqueViolation && e.constraint.includes('partner_reference_no')) {
            // Its twin (a retry with the same X-EXTERNAL-ID, say) still waits for the wallet: the
            // answer is not known yet, so this is a conflict, not a duplicate order.
            const twin = (await store.findTransactionByPartnerRef(m.id, 'ewallet', partnerReferenceNo)) as
              | EwalletTransaction
              | undefined;
            // (A wallet's answer sets walletReferenceNo, null when it gave none.)
            if (twin && twin.details.webRedirectUrl === '' && twin.details.walletReferenceNo === undefined) {
              throw snapError('CONFLICT', svc, { detail: { inFlight: twin.referenceNo } });
            }
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
      return cancelTransaction(deps, ctx, recordFor, {
        txn,
        reason,
        forward: (t) => atWallet(svc, t, (wallet) => deps.wallets.cancel(wallet, t, svc, reason, ctx.requestId)),
      });
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
        forward: (t) =>
          atWallet(svc, t, (wallet) => {
            const refund = { merchantId: ctx.merchant.id, partnerRefundNo, amount: refundAmount.value, reason };
            return deps.wallets.refund(wallet, t, svc, refund, ctx.requestId);
          }),
      });
    },
  };
}

export type EwalletService = ReturnType<typeof createEwalletService>;

// The gateway's records: merchants, transactions, notifications and their attempts, keys, audit,
// pages of results. Plain data every folder shares; the Store (store/store.ts) keeps them.
import type { TransactionStatus } from '@snapgate/snap';
import type { NewLedgerEntry } from './book-records.ts';
import type { PayoutAccount, PayoutSchedule } from './payout-records.ts';

export type {
  AdminKeyRecord,
  AdminScope,
  AuditEntry,
  AuditOutcome,
  StoredAuditEntry,
} from './access-records.ts';

export type TokenSignature = 'any' | 'hmac-sha256' | 'rsa-sha256';
/**
 * How callbacks are authenticated: signed with the merchant's secret (`hmac-sha512`), by the
 * gateway's key (`rsa-sha256`), or the SNAP inbound form (`snap-b2b`: a token from the merchant's
 * own token endpoint, then a token-bound HMAC-SHA512 signature).
 */
export type CallbackSignature = 'hmac-sha512' | 'rsa-sha256' | 'snap-b2b';
/** How a notification body is serialised: compact JSON, or the bytes PHP's json_encode writes. */
/** How callback bodies are serialised: `php` as json_encode, `php-laravel` also with empty strings as null. */
export type CallbackJson = 'standard' | 'php' | 'php-laravel';
/** A VA callback's body: snapgate's notification, or SNAP's VA payment shape (docs/callbacks.md). */
export type CallbackVaBody = 'standard' | 'snap-payment';
/** What acknowledges a callback: `2002600` only, or any `200xxxx` code, as a string or a number. */
export type CallbackAck = 'strict' | 'any-200';
export type MerchantStatus = 'active' | 'disabled';
/** The QRIS merchant criteria (micro, small, medium, large), written into its QRIS. */
export type QrisCriteria = 'UMI' | 'UKE' | 'UME' | 'UBE';
/** A fee as a percent of the amount plus a fixed amount (decimal strings with two fraction digits). */
export interface PercentFee {
  percent: string;
  fixed?: string | undefined;
}
/** A merchant's fees: QRIS by Bank Indonesia's MDR (the default) or its own; VA a fixed fee (default 0.00). */
export interface MerchantFees {
  qris?: { rule: 'bi-mdr' } | PercentFee | undefined;
  va?: { fixed: string; percent?: string | undefined } | undefined;
  /** An e-wallet payment (docs/ewallets.md): default 1.50 %. */
  ewallet?: PercentFee | undefined;
  /** A fixed fee per disbursement (docs/payouts.md#disbursements); default 0.00. */
  disbursement?: { fixed: string } | undefined;
}
/** A merchant's limits: `disbursementDaily`, the most its disbursements may send in a Jakarta day ("0.00": off). */
export interface MerchantLimits {
  disbursementDaily?: string | undefined;
}
/** The fee settings a transaction was created under: a later change of the merchant's applies to new ones only. */
export type FeeSnapshot = { rule: 'bi-mdr'; criteria: QrisCriteria } | { percent: string; fixed: string };

/** What a merchant and a provider are alike as SNAP clients of the gateway: their key, secrets and rotation. */
export interface ClientKeys {
  clientKey: string;
  clientSecret: string;
  /** The secret before the last rotation, accepted until `previousValidUntil`. */
  previousSecret: string | null;
  previousValidUntil: number | null;
  /** Bumped on every rotation; tokens carry it so a rotation can retire them. */
  secretVersion: number;
  /** Set when the client is disabled: tokens issued until then stay dead after re-enabling. */
  tokensNotBefore?: number | null;
}

export interface MerchantRecord extends ClientKeys {
  id: string;
  name: string;
  /** Its own callback retry schedule (`0s,5s,30s`); null: the gateway's SNAPGATE_RETRY_SCHEDULE. */
  retrySchedule?: string | null;
  /** Portal sessions and sign-in links issued until then are refused (portal log-out). */
  portalNotBefore?: number | null;
  partnerId: string;
  publicKeyPem: string | null;
  tokenSignature: TokenSignature;
  callbackSignature: CallbackSignature;
  callbackJson: CallbackJson;
  callbackVaBody: CallbackVaBody;
  callbackAck: CallbackAck;
  /** `snap-b2b`: where the gateway takes its token; default `<callbackBaseUrl>/api/snap/v1.0/access-token/b2b`. */
  callbackTokenUrl: string | null;
  callbackBaseUrl: string | null;
  qrisCallbackUrl: string | null;
  vaCallbackUrl: string | null;
  /** Where its transfer callbacks go; null: `<callbackBaseUrl>/v1.0/transfer/notify` (docs/payouts.md). */
  transferCallbackUrl?: string | null;
  merchantName: string;
  merchantCity: string;
  nmid: string;
  /** The gateway made `nmid` up (none was given): no real payer can pay its own QRIS. */
  nmidGenerated?: boolean;
  mcc: string;
  /** The acquirer (a provider id) that issues this merchant's QRIS; null: snapgate issues them itself. */
  qrisProvider: string | null;
  qrisCriteria: QrisCriteria;
  /** Null: the defaults (QRIS by Bank Indonesia's MDR, VA free). */
  fees: MerchantFees | null;
  /** The https origins that may frame its checkout pages (docs/checkout.md); null: none. */
  checkoutFrameAncestors?: string[] | null;
  /** Its verified bank account, and when its settlements are paid out (absent: manual): docs/payouts.md. */
  payoutAccount?: PayoutAccount | null;
  payoutSchedule?: PayoutSchedule;
  /** Null: the defaults (disbursements off). */
  limits?: MerchantLimits | null;
  status: MerchantStatus;
  createdAt: number;
  updatedAt: number;
}

export type MerchantPatch = Partial<
  Pick<
    MerchantRecord,
    | 'name'
    | 'partnerId'
    | 'publicKeyPem'
    | 'tokenSignature'
    | 'callbackSignature'
    | 'callbackJson'
    | 'callbackVaBody'
    | 'callbackAck'
    | 'callbackTokenUrl'
    | 'callbackBaseUrl'
    | 'qrisCallbackUrl'
    | 'vaCallbackUrl'
    | 'transferCallbackUrl'
    | 'merchantName'
    | 'merchantCity'
    | 'nmid'
    | 'mcc'
    | 'qrisProvider'
    | 'qrisCriteria'
    | 'fees'
    | 'retrySchedule'
    | 'checkoutFrameAncestors'
    | 'limits'
    | 'status'
  >
> &
  Pick<MerchantRecord, 'payoutAccount' | 'payoutSchedule'>;

/** One call a provider made, as answered (every inbound call is logged). */
export interface InboundCall {
  providerId: string;
  at: number;
  method: string;
  path: string;
  /** The request body, first 4 KiB. */
  requestBody: string;
  httpStatus: number;
  responseCode: string | null;
  responseBody: string;
  durationMs: number;
}

export interface StoredInboundCall extends InboundCall {
  id: number;
}

/** A bank's payment flag, kept so that a repeat (flagAdvise Y) answers the original answer. */
export interface VaPaymentRecord {
  providerId: string;
  paymentRequestId: string;
  referenceNo: string;
  httpStatus: number;
  responseBody: string;
  createdAt: number;
}

/** VA numbers reserved together: the merchant's prefix at the bank and its customer numbers, in order. */
export interface VirtualAccountNumbers {
  partnerServiceId: string;
  customerNos: string[];
}

export interface Page<T> {
  items: T[];
  nextCursor: string | null;
}

export interface PageRequest {
  limit: number;
  cursor?: string | undefined;
  /** Merchants and providers: oldest first instead of newest first. */
  oldestFirst?: boolean | undefined;
}

/**
 * The database gave up on a statement (PostgreSQL's statement or lock timeout): nothing of it was
 * written. The doors answer it as a timeout (SNAP 504, admin 503), never a crash.
 */
export class DatabaseTimeout extends Error {
  constructor(cause: unknown) {
    super('the database did not answer in time', { cause });
    this.name = 'DatabaseTimeout';
  }
}

/** A uniqueness rule the database refused; services turn it into the SNAP or admin error. */
export class UniqueViolation extends Error {
  readonly constraint: string;
  constructor(constraint: string, cause?: unknown) {
    super(`unique violation: ${constraint}`, { cause });
    this.name = 'UniqueViolation';
    this.constraint = constraint;
  }
}

export type TransactionKind = TransactionRecord['kind'];

/** A paid transaction as reconciliation and verification read it. */
export interface PaidTransaction {
  referenceNo: string;
  partnerReferenceNo: string;
  merchantId: string;
  kind: TransactionKind;
  status: string;
  amount: string | null;
  paidAmount: string | null;
  feeAmount: string;
  paidAt: number | null;
  /** The acquirer's reference (QRIS) or the bank's paymentRequestId (VA), when known. */
  providerReference: string | null;
  /** The payment entry the transaction names (null: none, as before the books). */
  paymentEntryId: string | null;
}

/** Who paid, as the merchant's callback names them (docs/protocol.md#callbacks). */
export interface Payer {
  payerName: string;
  payerIssuer: string;
  payerRefId: string;
}

/** What a payment an upstream provider issued keeps of it (`details.upstream`): a QRIS of an acquirer, a wallet's payment. */
export interface UpstreamRef {
  providerId: string;
  /** Our X-EXTERNAL-ID of the generate call, reused if it is ever sent again. */
  externalId: string;
  /** The acquirer's referenceNo, once it answered. */
  referenceNo?: string | undefined;
  /** Its validity (a QRIS's validityPeriod, a payment's validUpTo): the transaction's due time is when to reconcile it. */
  validUntil: number;
  /** Reconciliations that settled nothing so far (each waits longer before the next). */
  reconcileAttempts?: number;
}

/** A QRIS's own fields (stored as JSON). */
export interface QrisDetails {
  /** The EMVCo string; empty while an upstream acquirer has not answered yet. */
  qrContent: string;
  merchantRef?: string | undefined;
  terminalId?: string | undefined;
  storeId?: string | undefined;
  additionalInfo?: Record<string, unknown> | undefined;
  /** Set when an upstream acquirer issued it. */
  upstream?: UpstreamRef;
  /** Set once paid (or failed) by a notify or a reconciliation. */
  payer?: Payer;
  acquirerReferenceNo?: string | null;
  partnerReferenceNo?: string;
  /** The fee settings at creation (none on transactions from before fees existed: no fee). */
  fee?: FeeSnapshot;
}

/** A Virtual Account's own fields (stored as JSON). */
export interface VaDetails {
  partnerServiceId: string;
  customerNo: string;
  virtualAccountName: string;
  virtualAccountEmail: string;
  virtualAccountPhone: string;
  virtualAccountTrxType: 'C' | 'O';
  totalAmount: { value: string; currency: string } | null;
  bankCode: string;
  additionalInfo?: Record<string, unknown>;
  /** Set once paid by a bank's payment flag. */
  payer?: Payer;
  bankReferenceNo?: string | null;
  /** The bank's paymentRequestId of the payment flag that paid it. */
  paymentRequestId?: string;
  /** The fee settings at creation (none on transactions from before fees existed: no fee). */
  fee?: FeeSnapshot;
}

/**
 * An e-wallet payment's own fields (stored as JSON): SNAP Direct Debit (docs/ewallets.md). Its
 * `PAY_RETURN` url is its checkout's `additionalInfo.returnUrl`, as a QRIS's or a VA's is.
 */
export interface EwalletDetails {
  /** `PAY_NOTIFY`: where its callbacks go instead of `<callbackBaseUrl>/v1.0/debit/notify`. */
  notifyUrl?: string | undefined;
  /** The wallet (`payOption`): `DANA`, `OVO`, … or `SANDBOXPAY`. */
  payOption: string;
  /** The e-wallet provider that serves that wallet. */
  providerId: string;
  /** Where the payer authorises the payment (the wallet's page, or the sandbox wallet's); empty while a wallet has not answered. */
  webRedirectUrl: string;
  /** The wallet app's own link (a deep link), when the wallet gave one. */
  appRedirectUrl?: string | undefined;
  /** The account binding it was paid from, without a redirect (docs/ewallets.md#account-binding). */
  bindingId?: string | undefined;
  /** Set when a connected wallet (not the sandbox's) serves it: reconciliation with it, not the clock, ends it. */
  upstream?: UpstreamRef;
  /** The wallet's own reference, once it told. */
  walletReferenceNo?: string | null;
  additionalInfo?: Record<string, unknown> | undefined;
  /** Set once paid (or declined) by the wallet's notify. */
  payer?: Payer;
  fee?: FeeSnapshot;
}

/** What the transactions of every method have alike. Amounts are SNAP money strings. */
interface TransactionBase {
  referenceNo: string;
  merchantId: string;
  /** QRIS partnerReferenceNo, or VA trxId. */
  partnerReferenceNo: string;
  status: TransactionStatus;
  statusDesc: string | null;
  /** Bumped by every status change; orders notifications of one transaction. */
  seq: number;
  /** Null for an open VA. */
  amount: string | null;
  currency: string;
  paidAmount: string | null;
  refundedAmount: string;
  feeAmount: string;
  virtualAccountNo: string | null;
  billNumber: number;
  expiresAt: number | null;
  paidAt: number | null;
  /**
   * Its hosted checkout page's id (`/pay/<checkoutId>`, docs/checkout.md): random, never derived
   * from a reference. Null (or absent) on transactions from before the checkout: they have no page.
   */
  checkoutId?: string | null;
  /** The payment link it was made from (docs/payment-links.md); absent for any other transaction. */
  paymentLinkId?: string | null;
  /** The same, for a single-use link: at most one such payment is under way or paid (migration 045). */
  paymentLinkOnce?: string | null;
  createdAt: number;
  updatedAt: number;
}

export interface QrisTransaction extends TransactionBase {
  kind: 'qris';
  details: QrisDetails;
}

export interface VaTransaction extends TransactionBase {
  kind: 'va';
  details: VaDetails;
}

export interface EwalletTransaction extends TransactionBase {
  kind: 'ewallet';
  details: EwalletDetails;
}

/** A QRIS, VA or e-wallet transaction: `kind` says which, and so what its `details` hold. */
export type TransactionRecord = QrisTransaction | VaTransaction | EwalletTransaction;
export type TransactionDetails = TransactionRecord['details'];

export interface StatusHistoryEntry {
  seq: number;
  status: TransactionStatus;
  statusDesc: string | null;
  reason: string | null;
  changedAt: number;
}

export type NotificationState = 'pending' | 'delivering' | 'retrying' | 'delivered' | 'superseded' | 'dead';

/** What a notification tells: a transaction's status (qris, va) or a disbursement's end (transfer). */
export type NotificationKind = TransactionKind | 'transfer';

export interface NotificationRecord {
  /** Numeric string; sent as X-EXTERNAL-ID on every attempt. */
  id: string;
  /** The transaction's referenceNo, or the disbursement's. */
  referenceNo: string;
  merchantId: string;
  kind: NotificationKind;
  txnSeq: number;
  latestStatus: TransactionStatus;
  /** The exact bytes signed and sent on every attempt. */
  body: string;
  state: NotificationState;
  attemptCount: number;
  nextAttemptAt: number | null;
  claimedBy: string | null;
  leaseUntil: number | null;
  createdAt: number;
  updatedAt: number;
  deliveredAt: number | null;
  lastError: string | null;
  /** The X-Request-Id of the request that caused it; sent with every attempt. */
  requestId?: string | null;
  /** Its own callback URL (an e-wallet payment's `PAY_NOTIFY`); null: the merchant's. */
  callbackUrl?: string | null;
}

/** A notification as an attempt left it: everything but its body, which the attempt did not change. */
export type MovedNotification = Omit<NotificationRecord, 'body'>;

/** A new outbox row written in the same transaction as the change that caused it. */
export interface NewNotification {
  id: string;
  body: string;
  nextAttemptAt: number;
  requestId?: string | null;
  /** Its own callback URL instead of the merchant's (an e-wallet payment's `PAY_NOTIFY`). */
  callbackUrl?: string | null;
  /**
   * Claimed at birth: written already leased to this worker, whose dispatcher sends it as soon as
   * the change commits (no claim of its own). Written pending as usual when the transaction has
   * another undelivered notification (one being sent, or an older one this change supersedes).
   */
  claim?: { workerId: string; leaseUntil: number } | undefined;
}

/** A status change as committed. */
export interface StatusChanged {
  txn: TransactionRecord;
  /** Its notification, when it was claimed at birth (NewNotification.claim). */
  claimed?: NotificationRecord | undefined;
}

/** The stored answer to an X-EXTERNAL-ID, replayed byte for byte. */
export interface IdempotencyRecord {
  /** The calling client: a merchant's id, or a provider's. */
  merchantId: string;
  day: string;
  externalId: string;
  requestHash: string;
  httpStatus: number;
  responseBody: string;
}

export type IdempotencyKey = Pick<IdempotencyRecord, 'merchantId' | 'day' | 'externalId'>;

export interface RefundRecord {
  refundNo: string;
  referenceNo: string;
  merchantId: string;
  partnerRefundNo: string;
  amount: string;
  reason: string | null;
  createdAt: number;
}

/** A status change, applied only if the transaction is still at `expectedSeq`. */
export interface StatusChange {
  referenceNo: string;
  expectedSeq: number;
  status: TransactionStatus;
  statusDesc: string | null;
  reason: string | null;
  at: number;
  /** Other columns the change sets (paid amount, payer details, refunded amount, …). */
  patch?: Partial<
    Pick<
      TransactionRecord,
      | 'paidAmount'
      | 'paidAt'
      | 'refundedAmount'
      | 'feeAmount'
      | 'details'
      | 'amount'
      | 'expiresAt'
      /** Only to release it (a QRIS whose acquirer failed does not hold its merchant's reference). */
      | 'partnerReferenceNo'
    >
  >;
  notification?: NewNotification | undefined;
  idempotency?: IdempotencyRecord | undefined;
  refund?: RefundRecord | undefined;
  /** A bank's payment flag, written with the payment it made. */
  vaPayment?: VaPaymentRecord | undefined;
  /** The ledger entry the change posts (a payment, a refund), in the same database transaction. */
  ledger?: NewLedgerEntry | undefined;
  /**
   * The transaction as this change makes it, when the caller knows it (the status changer does):
   * a store may answer it instead of reading the row back (docs/adr/0009-sqlite-writer-thread.md).
   */
  next?: TransactionRecord | undefined;
}

/** A change to a transaction that is not a status change (VA update). */
export interface TransactionUpdate {
  referenceNo: string;
  expectedSeq: number;
  at: number;
  patch: Partial<Pick<TransactionRecord, 'amount' | 'expiresAt' | 'details'>>;
  idempotency?: IdempotencyRecord | undefined;
}

export type AttemptOutcome = 'acknowledged' | 'rejected' | 'error';

/** One callback attempt, as the dispatcher reports it. */
export interface AttemptRecord {
  notificationId: string;
  workerId: string;
  startedAt: number;
  url: string | null;
  requestHeaders: Record<string, string>;
  responseStatus: number | null;
  responseBody: string | null;
  durationMs: number;
  outcome: AttemptOutcome;
  error: string | null;
  /** When the next attempt is due; `undefined` after the last (dead). Ignored when acknowledged. */
  nextAttemptAt: number | undefined;
  finishedAt: number;
}

export interface StoredAttempt extends Omit<AttemptRecord, 'nextAttemptAt' | 'finishedAt' | 'workerId'> {
  attemptNo: number;
}

export interface NotificationFilter extends ListOrder {
  merchantId?: string | undefined;
  state?: NotificationState | undefined;
  referenceNo?: string | undefined;
}

export interface DeliveryBacklog {
  /** Notifications not yet delivered, superseded or dead. */
  undelivered: number;
  oldestUndeliveredAt: number | null;
}

/** Filters of an admin list; newest first unless `oldestFirst`. */
export interface ListOrder {
  /** Created at or after (epoch ms). */
  since?: number | undefined;
  /** Created before (epoch ms). */
  until?: number | undefined;
  oldestFirst?: boolean | undefined;
}

export interface TransactionFilter extends ListOrder {
  merchantId?: string | undefined;
  status?: TransactionStatus | undefined;
  kind?: TransactionKind | undefined;
  /** The referenceNo, partnerReferenceNo (QRIS) or trxId (VA), or the virtual account number. */
  reference?: string | undefined;
}

/**
 * Where a stored secret lives: a secret column of a merchant's or provider's row
 * (`outbound.clientSecret`, `outbound.privateKeyPem`: fields of the outbound JSON), or a setting.
 */
export type SecretPlace =
  | { table: 'merchants' | 'providers' | 'account_bindings' | 'merchant_users'; column: string; id: string }
  | { table: 'settings'; key: string };

/** One minute of callback attempts: `minute` is the minute's start (epoch ms). */
export interface AttemptMinute {
  minute: number;
  acknowledged: number;
  failed: number;
}

export interface TransactionSearch {
  merchantId?: string | undefined;
  status?: TransactionStatus | undefined;
  kind?: TransactionKind | undefined;
  /** created_at >= from (epoch ms). */
  from?: number | undefined;
  /** created_at < to (epoch ms). */
  to?: number | undefined;
  /** Exactly the referenceNo, the partnerReferenceNo or the virtual account number. */
  reference?: string | undefined;
}

/** One webhook certification run of a merchant (sandbox mode). */
export interface CertificationRecord {
  id: string;
  merchantId: string;
  startedAt: number;
  finishedAt: number;
  /** True when every scenario passed. */
  passed: boolean;
  /** The report, as JSON text. */
  report: string;
  /** Which suite: `webhook-certification` or `snap-server-conformance`. */
  suite: string;
}

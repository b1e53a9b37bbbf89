// The Store speaks domain verbs. Every verb is one database transaction.
// `http/` and the services talk to this interface only; main.ts and cli/ pick the implementation.

import type {
  AccountBinding,
  BindingChange,
  BindingChangeOptions,
  BindingKey,
  BindingStatus,
} from '../records/binding-records.ts';
import type {
  LedgerCheckpoint,
  LedgerEntry,
  LedgerFilter,
  LedgerTotals,
  NewLedgerEntry,
  PayoutOutcome,
  ReconciliationRecord,
  ReconciliationResolution,
  RunningTotals,
  SettlementFilter,
  SettlementRecord,
  SettlementRun,
  StoredReconciliationProblem,
} from '../records/book-records.ts';
import type { LinkPayment, PaymentLink } from '../records/link-records.ts';
import type {
  MerchantUser,
  MerchantUserChange,
  MerchantUserGuard,
  MerchantUserKey,
  SignInFailure,
} from '../records/merchant-user-records.ts';
import type {
  PayoutChange,
  PayoutExchangeRecord,
  PayoutFilter,
  PayoutRecord,
  PayoutState,
  SandboxTransferRecord,
} from '../records/payout-records.ts';
import type { ProviderPatch, ProviderRecord } from '../records/provider-records.ts';
import type {
  AdminKeyRecord,
  AttemptMinute,
  AttemptRecord,
  AuditEntry,
  AuditOutcome,
  CertificationRecord,
  DeliveryBacklog,
  IdempotencyKey,
  IdempotencyRecord,
  InboundCall,
  MerchantPatch,
  MerchantRecord,
  MovedNotification,
  NotificationFilter,
  NotificationRecord,
  Page,
  PageRequest,
  PaidTransaction,
  RefundRecord,
  SecretPlace,
  StatusChange,
  StatusChanged,
  StatusHistoryEntry,
  StoredAttempt,
  StoredAuditEntry,
  StoredInboundCall,
  TransactionFilter,
  TransactionKind,
  TransactionRecord,
  TransactionSearch,
  TransactionUpdate,
  VaPaymentRecord,
  VirtualAccountNumbers,
} from '../records/records.ts';
import type { StatusWatcher } from '../records/status-watch.ts';
import type { DisbursementStart, NewDisbursement, NewPayout, PayoutPostings, PayoutStart } from './parts/payouts.ts';

export type { AnnouncedStatus, StatusWatcher } from '../records/status-watch.ts';
export type { PayoutPostings, TransferNotice } from './parts/payouts.ts';

/** One group commit of the embedded store's writer, as its metrics count it. */
export interface CommitStats {
  /**
   * From the writer taking the batch up to the end of its COMMIT: a wait for the gateway's own
   * other writes to the file (a settlement, an operator's change), any retry, the statements, the
   * WAL writes and the fsync. Not the time the batch queued behind the commit before it.
   */
  seconds: number;
  /** How many writes it carried (what several turns of the event loop handed it). */
  writes: number;
}

/** The database itself: schema, reachability, secrets at rest, retention. */
export interface StoreLifecycle {
  readonly kind: 'sqlite' | 'postgres';
  /**
   * SQLite: `observer` is told of every group commit of the hot writes that succeeded (the writer
   * thread's, or the connection's own for an in-memory database), as is every observer given
   * before. PostgreSQL has none: its commits are the server's, seen in its own statistics.
   */
  observeCommits?(observer: (commit: CommitStats) => void): void;
  /**
   * PostgreSQL: every instance's committed status changes, and a resync after each gap in what
   * this instance heard; returns the stop. SQLite has none: one process per database file, whose
   * status changes already tell its pages.
   */
  watchStatusChanges?(watcher: StatusWatcher): () => void;
  /** Applies pending numbered migrations. */
  migrate(): Promise<void>;
  /** Throws when the database cannot be reached. */
  ping(): Promise<void>;
  close(): Promise<void>;
  /**
   * Passes every stored secret (merchants' and providers' secrets, providers' outbound secret and
   * private key, the settings named) to `reseal`, with where it lives, and writes back what it
   * returns instead, all in one database transaction: sealing clear values, re-sealing in the
   * current form or under a new master key. A value `reseal` returns `undefined` for is left as it
   * is. Returns how many values were rewritten.
   */
  resealSecrets(
    reseal: (stored: string, place: SecretPlace) => string | undefined,
    settings: ReadonlySet<string>,
  ): Promise<number>;
  /**
   * How many of the values resealSecrets would pass begin with each `headChars` characters (a
   * sealed record names its key there): read only, without row locks, nothing written.
   */
  countSecretsByHead(headChars: number, settings: ReadonlySet<string>): Promise<Record<string, number>>;
  /**
   * One small batch of retention, in its own short transaction: up to `limit` attempts started
   * before `before` whose notification was delivered (or superseded) lose their request headers and
   * response body, and up to `limit` idempotency keys created before `before` are deleted. Never a
   * transaction, its history, a notification, or an attempt of one still undelivered.
   */
  pruneBefore(before: number, limit: number): Promise<{ attempts: number; idempotencyKeys: number }>;
}

/** The gateway's own settings (its keys, first-run state). */
export interface SettingsStore {
  /** Returns the stored value, or stores `create()` and returns it; first writer wins. */
  getOrCreateSetting(key: string, create: () => string): Promise<string>;
  getSetting(key: string): Promise<string | undefined>;
}

/** Merchants and providers, and the log of what providers called. */
export interface ClientStore {
  insertMerchant(merchant: MerchantRecord): Promise<void>;
  findMerchantById(id: string): Promise<MerchantRecord | undefined>;
  findMerchantByClientKey(clientKey: string): Promise<MerchantRecord | undefined>;
  listMerchants(page: PageRequest): Promise<Page<MerchantRecord>>;
  countMerchants(): Promise<number>;
  updateMerchant(id: string, patch: MerchantPatch, updatedAt: number): Promise<MerchantRecord | undefined>;
  /** A new secret, the current one kept as the previous; with `fromVersion`, only while it is that version. */
  rotateMerchantSecret(
    id: string,
    rotation: { clientSecret: string; previousValidUntil: number; rotatedAt: number; fromVersion?: number | undefined },
  ): Promise<MerchantRecord | undefined>;
  insertProvider(provider: ProviderRecord): Promise<void>;
  findProviderById(id: string): Promise<ProviderRecord | undefined>;
  findProviderByClientKey(clientKey: string): Promise<ProviderRecord | undefined>;
  /** Every provider, oldest first (there are few: banks and acquirers an operator connected). */
  listProviders(page: PageRequest): Promise<Page<ProviderRecord>>;
  updateProvider(id: string, patch: ProviderPatch, updatedAt: number): Promise<ProviderRecord | undefined>;
  rotateProviderSecret(
    id: string,
    rotation: { clientSecret: string; previousValidUntil: number; rotatedAt: number },
  ): Promise<ProviderRecord | undefined>;
  /** The banks (never the sandbox one) registered with this bankCode, active or not, oldest first. */
  findBanks(bankCode: string): Promise<ProviderRecord[]>;
  /** The acquirer named to acquire the QRIS snapgate issues itself (acquiresGatewayQris), if any. */
  findGatewayQrisAcquirer(): Promise<ProviderRecord | undefined>;
  /** The active e-wallet provider that serves this wallet (`payOption`), if one does. */
  findWallet(payOption: string): Promise<ProviderRecord | undefined>;
  /** The provider that is the payout bank (`payouts` set; at most one), active or not. */
  findPayoutBank(): Promise<ProviderRecord | undefined>;
  /**
   * Keeps a transfer of the built-in sandbox bank unless its partnerReferenceNo has one already
   * (atomically: of two at once, one is kept); the transfer kept, this one or the first.
   */
  insertSandboxTransfer(transfer: SandboxTransferRecord): Promise<SandboxTransferRecord>;
  findSandboxTransfer(
    by: { partnerReferenceNo: string } | { referenceNo: string },
  ): Promise<SandboxTransferRecord | undefined>;
  /** A pending sandbox transfer ends as its outcome, once; the transfer as it is after (undefined: none). */
  endSandboxTransfer(partnerReferenceNo: string, at: number): Promise<SandboxTransferRecord | undefined>;
  /** Appends calls to the inbound log, all in one database transaction. */
  recordInbound(calls: readonly InboundCall[]): Promise<void>;
  /** A provider's inbound calls, newest first. */
  listInbound(providerId: string, page: PageRequest): Promise<Page<StoredInboundCall>>;
}

/** Admin keys, console sessions and the append-only audit log. */
/** What revoking an admin key did: the key as it now is, or why it was left alone. */
export type AdminKeyRevocation =
  | { outcome: 'revoked'; key: AdminKeyRecord }
  | { outcome: 'last-admin-key' }
  | { outcome: 'not-found' };

/** The use of a portal sign-in link, by the link's nonce; kept until the link is long expired. */
export interface PortalLinkUse {
  nonce: string;
  merchantId: string;
  usedAt: number;
  expiresAt: number;
}

export interface AccessStore {
  insertAdminKey(key: AdminKeyRecord): Promise<void>;
  /** The key with this SHA-256, revoked or not; read from the database every time (revocation is at once). */
  findAdminKeyByHash(tokenSha256: string): Promise<AdminKeyRecord | undefined>;
  listAdminKeys(): Promise<AdminKeyRecord[]>;
  /**
   * Revokes a key (a revoked one stays as it was), unless it is the last active key of scope
   * `admin`: checked and written atomically, so two revokes at once never leave no admin key.
   */
  revokeAdminKey(id: string, at: number): Promise<AdminKeyRevocation>;
  touchAdminKey(id: string, at: number): Promise<void>;
  /** Ends every console session of an admin key, and every portal session of a merchant, issued until `at`. */
  endConsoleSessions(who: { adminKeyId: string } | { merchantId: string }, at: number): Promise<void>;
  /**
   * Records the first use of a portal sign-in link; false when it was used before (atomically: of
   * two uses at once, exactly one is first). Forgets the uses of links expired before `forgetBefore`.
   */
  usePortalLink(use: PortalLinkUse, forgetBefore: number): Promise<boolean>;
  /** Whether a portal sign-in link was used (read only: opening the link's page uses nothing). */
  isPortalLinkUsed(nonce: string): Promise<boolean>;
  /**
   * Makes the key named `name` an admin key with this SHA-256 (the bootstrap token, from
   * SNAPGATE_ADMIN_TOKEN or generated): created when absent, its hash replaced when the token changed.
   */
  upsertBootstrapAdminKey(name: string, tokenSha256: string, at: number): Promise<void>;
  /** Appends to the audit log (which cannot be changed or deleted); the row's id. */
  appendAudit(entry: AuditEntry): Promise<number>;
  /** Appends how the action of an audit row written before it ran ended (once per row). */
  appendAuditOutcome(auditId: number, outcome: AuditOutcome): Promise<void>;
  /** The audit log, newest first, optionally of one target. */
  listAudit(page: PageRequest, filter?: { target?: string }): Promise<Page<StoredAuditEntry>>;
}

/** Transactions, their status changes and what commits with them (idempotency answers, refunds, payment flags, VA numbers). */
export interface TransactionStore {
  /** The stored answer for an X-EXTERNAL-ID, if any. */
  findIdempotency(key: IdempotencyKey): Promise<IdempotencyRecord | undefined>;
  /** Records the answer of a read-only operation; throws UniqueViolation when the key exists. */
  insertIdempotency(record: IdempotencyRecord, at: number): Promise<void>;
  /** Inserts a new transaction (status history row included), with its idempotency record. */
  insertTransaction(txn: TransactionRecord, idempotency?: IdempotencyRecord): Promise<void>;
  findTransaction(referenceNo: string): Promise<TransactionRecord | undefined>;
  findTransactionByPartnerRef(
    merchantId: string,
    kind: TransactionKind,
    partnerReferenceNo: string,
  ): Promise<TransactionRecord | undefined>;
  findTransactionByVirtualAccountNo(virtualAccountNo: string): Promise<TransactionRecord | undefined>;
  /** The transaction whose hosted checkout page this is (docs/checkout.md). */
  findTransactionByCheckoutId(checkoutId: string): Promise<TransactionRecord | undefined>;
  listTransactions(filter: TransactionFilter, page: PageRequest): Promise<Page<TransactionRecord>>;
  statusHistory(referenceNo: string): Promise<StatusHistoryEntry[]>;
  /**
   * Applies a status change with its history row, notification (superseding older undelivered
   * ones of the transaction), refund and idempotency record, all in one database transaction.
   * Returns the updated transaction (and its notification when claimed at birth), or `undefined`
   * when another change got there first.
   */
  changeStatus(change: StatusChange): Promise<StatusChanged | undefined>;
  updateTransaction(update: TransactionUpdate): Promise<TransactionRecord | undefined>;
  /** Transactions still open (01/02/03) whose expiry is due. */
  findDueExpiries(now: number, limit: number): Promise<TransactionRecord[]>;
  /**
   * The next `count` VA numbers of a merchant at a bank, consecutive, each handed out once in any
   * instance (allocating the merchant's prefix on first use).
   */
  allocateVirtualAccounts(merchantId: string, bankCode: string, count: number): Promise<VirtualAccountNumbers>;
  /** A merchant's refund by its partnerRefundNo. */
  findRefund(merchantId: string, partnerRefundNo: string): Promise<RefundRecord | undefined>;
  findVaPayment(providerId: string, paymentRequestId: string): Promise<VaPaymentRecord | undefined>;
}

/** The notification outbox: claims with leases, attempts, replay and recovery. */
export interface OutboxStore {
  notificationsOf(referenceNo: string): Promise<NotificationRecord[]>;
  /**
   * Claims due notifications for `workerId` with a lease: pending/retrying rows whose time has
   * come, and rows whose claimant's lease ran out. Only the latest notification of a transaction
   * is claimed, and never while another of its notifications is in flight.
   */
  claimDueNotifications(workerId: string, now: number, leaseMs: number, limit: number): Promise<NotificationRecord[]>;
  /**
   * Records attempts and moves each notification on, all in one database transaction: delivered
   * when acknowledged; else superseded if a newer one exists, retrying, or dead. A row is changed
   * only by its claimant; the attempt is logged either way. Returns the notifications moved.
   */
  recordAttempts(attempts: AttemptRecord[]): Promise<MovedNotification[]>;
  /**
   * Gives back a worker's claims (graceful shutdown): due again at `now`. Rows in `keep` are still
   * being sent: they keep their lease, so no other instance sends them at the same time.
   */
  releaseClaims(workerId: string, now: number, keep?: readonly string[]): Promise<number>;
  findNotification(id: string): Promise<NotificationRecord | undefined>;
  listNotifications(filter: NotificationFilter, page: PageRequest): Promise<Page<NotificationRecord>>;
  attemptsOf(notificationId: string): Promise<StoredAttempt[]>;
  /** Makes a notification due again now; `undefined` if it is unknown, in flight or not its transaction's latest. */
  replayNotification(id: string, now: number): Promise<NotificationRecord | undefined>;
  /** Re-queues a merchant's dead notifications created since `since` (latest of their transaction only). */
  recoverDead(merchantId: string, since: number, now: number): Promise<number>;
  /** The latest notification of each transaction whose latest status is not acknowledged. */
  undelivered(merchantId: string | undefined, limit: number): Promise<NotificationRecord[]>;
  deliveryBacklog(): Promise<DeliveryBacklog>;
}

/** What the console's overview and search count and find. */
export interface StatisticsStore {
  /** Transactions created at or after `since`, counted by status (the console's overview). */
  countTransactionsByStatus(since: number): Promise<Record<string, number>>;
  /** Notifications counted by state (the console's overview). */
  countNotificationsByState(): Promise<Record<string, number>>;
  /** Callback attempts started at or after `since`, counted per minute, oldest minute first. */
  attemptsPerMinute(since: number): Promise<AttemptMinute[]>;
  /** Inbound provider calls at or after `since`, counted by provider id. */
  countInboundByProvider(since: number): Promise<Record<string, number>>;
  /** Transactions newest first, filtered (the console's search); the first `offset` rows skipped. */
  searchTransactions(filter: TransactionSearch, limit: number, offset: number): Promise<TransactionRecord[]>;
}

/** Webhook certification runs. */
export interface CertificationStore {
  /** Stores a webhook certification run. */
  insertCertification(run: CertificationRecord): Promise<void>;
  /** A merchant's certification runs, newest first. */
  /** A merchant's runs of one suite (`webhook-certification`, `snap-server-conformance`), newest first. */
  listCertifications(merchantId: string, suite: string): Promise<CertificationRecord[]>;
  findCertification(id: string): Promise<CertificationRecord | undefined>;
}

/** The books (docs/books.md): the ledger, settlements, reconciliation runs. */
export interface BooksStore {
  /** When the ledger began (epoch ms): transactions paid before have no entries. */
  ledgerStartedAt(): Promise<number>;
  /** A transaction's payment entry, if it has one. */
  findPaymentEntry(referenceNo: string): Promise<LedgerEntry | undefined>;
  /** Entries newest first. */
  listLedgerEntries(filter: LedgerFilter, page: PageRequest): Promise<Page<LedgerEntry>>;
  /** Every entry in id order after `afterId`, `limit` at a time. */
  scanLedger(afterId: number, limit: number): Promise<LedgerEntry[]>;
  /** A merchant's entries summed by kind. */
  ledgerTotals(merchantId: string): Promise<LedgerTotals>;
  /** A merchant's balance as its running totals keep it: one row, whatever its history. */
  runningTotals(merchantId: string): Promise<RunningTotals>;
  /** Where the last clean verification got to (migration 035), and keeping a new one. */
  latestLedgerCheckpoint(): Promise<LedgerCheckpoint | undefined>;
  saveLedgerCheckpoint(cp: LedgerCheckpoint): Promise<void>;
  /** Which of these exist, and in what status or state (verification's causes, a page at a time). */
  knownRefunds(refundNos: string[]): Promise<Set<string>>;
  settlementStatuses(ids: string[]): Promise<Map<string, string>>;
  payoutStates(ids: string[]): Promise<Map<string, string>>;
  /** A merchant's running totals and its entries summed, in one snapshot. */
  totalsAgainstEntries(merchantId: string): Promise<{ totals: RunningTotals; entries: LedgerTotals }>;
  /** Every merchant with an entry. */
  ledgerMerchants(): Promise<string[]>;
  paidTransactionsByReference(referenceNos: string[]): Promise<PaidTransaction[]>;
  /** What a provider collected at or after `since` and before `until` (by its payment entries), in pages. */
  paidTransactionsOfProvider(
    providerId: string,
    since: number,
    until: number,
    page: PageRequest,
  ): Promise<Page<PaidTransaction>>;
  /** Transactions paid at or after `since`, a page at a time in the order they were paid. */
  paidTransactionsSince(since: number, page: PageRequest): Promise<Page<PaidTransaction>>;
  /** Refunds of transactions paid at or after `since`, summed per merchant in sen. */
  refundsSince(since: number): Promise<Map<string, bigint>>;
  knownCauses(): Promise<{ refunds: Set<string>; settlements: Map<string, string> }>;
  /** Disbursements as ledger verification checks them (store/parts/payouts.ts). */
  disbursementFacts(): Promise<{
    states: Map<string, PayoutState>;
    spentByMerchant: Map<string, bigint>;
    inFlightSen: bigint;
  }>;
  /** Merchants with payment or refund entries before `cutoff` in no settlement. */
  merchantsWithUnsettled(cutoff: number): Promise<string[]>;
  /** The unsettled queue against the journal: entries missing from it, rows already settled. */
  unsettledQueueProblems(
    limit: number,
  ): Promise<Array<{ entryId: string; merchantId: string; problem: 'missing' | 'taken' }>>;
  /**
   * One merchant's settlement and its ledger entry, in one database transaction that no other
   * settlement run (on any instance) overlaps. `undefined` when there is nothing to settle.
   */
  settleMerchant(
    run: SettlementRun,
    entryFor: (s: SettlementRecord) => NewLedgerEntry,
  ): Promise<SettlementRecord | undefined>;
  findSettlement(id: string): Promise<SettlementRecord | undefined>;
  listSettlements(filter: SettlementFilter, limit: number): Promise<SettlementRecord[]>;
  settlementEntries(id: string): Promise<LedgerEntry[]>;
  /** A page of a settlement's entries in the order they were written, after entry `afterId`. */
  settlementEntriesPage(id: string, afterId: number, limit: number): Promise<LedgerEntry[]>;
  /**
   * An open settlement becomes `paying` with its new payout (docs/payouts.md), in one database
   * transaction: of two at once, or a payout and a manual marking, one wins.
   */
  startSettlementPayout(payout: NewPayout): Promise<PayoutStart>;
  findPayout(id: string): Promise<PayoutRecord | undefined>;
  listPayouts(filter: PayoutFilter, limit: number): Promise<PayoutRecord[]>;
  payoutExchanges(id: string): Promise<PayoutExchangeRecord[]>;
  /**
   * Keeps the exchange and moves a `sending` or `pending` payout as the bank said, with what it pays
   * (a settlement paid with its payout entry, or open again; a disbursement's paid or returned
   * entry), in one database transaction.
   */
  recordPayoutAnswer(
    id: string,
    change: PayoutChange,
    exchange: PayoutExchangeRecord | null,
    at: number,
    postings: PayoutPostings,
  ): Promise<PayoutRecord | undefined>;
  /**
   * A merchant's disbursement with its `disbursement` entry, in one database transaction, when its
   * pending balance funds it and its daily limit allows it; else nothing is written.
   */
  startDisbursement(disbursement: NewDisbursement): Promise<DisbursementStart>;
  /** Scheduled settlements of `auto` merchants no payout was asked for, made from `since` to `before`. */
  unpaidAutomaticSettlements(since: number, before: number, limit: number): Promise<SettlementRecord[]>;
  /** Why an open settlement could not be paid out; kept on it as `lastPayoutError`. */
  noteSettlementPayoutError(id: string, error: string): Promise<void>;
  findDisbursement(
    merchantId: string,
    by: { merchantReferenceNo?: string; referenceNo?: string },
  ): Promise<PayoutRecord | undefined>;
  /** Payouts due for a status query, each claimed by `owner` until `leaseUntil`. */
  claimDuePayouts(now: number, owner: string, leaseUntil: number, limit: number): Promise<PayoutRecord[]>;
  /** One payout claimed to be asked about now, unless another claim on it is live. */
  claimPayout(id: string, now: number, owner: string, leaseUntil: number): Promise<PayoutRecord | undefined>;
  approvePayout(
    id: string,
    approvedBy: string,
    at: number,
    claim: { owner: string; leaseUntil: number; nextCheckAt: number },
  ): Promise<PayoutRecord | undefined>;
  rejectPayout(id: string, rejectedBy: string, at: number): Promise<PayoutRecord | undefined>;
  /** An open settlement paid out, with its payout entry, in one database transaction. */
  payOut(
    id: string,
    bankReference: string,
    at: number,
    entryFor: (s: SettlementRecord) => NewLedgerEntry,
  ): Promise<PayoutOutcome>;
  /**
   * Stores problems of a run (a batch at a time, each with its `seq`) before the run itself:
   * insertReconciliation, last, makes the run visible whole.
   */
  insertReconciliationProblems(reconciliationId: string, problems: StoredReconciliationProblem[]): Promise<void>;
  insertReconciliation(run: ReconciliationRecord): Promise<void>;
  findReconciliation(id: string): Promise<ReconciliationRecord | undefined>;
  listReconciliations(providerId: string, limit: number): Promise<ReconciliationRecord[]>;
  /** A run's problems in their order, a page at a time, each with when it was applied. */
  reconciliationProblems(id: string, page: PageRequest): Promise<Page<StoredReconciliationProblem>>;
  /** The problem on a line of a run, with what the line reported. */
  findReconciliationProblem(id: string, line: number): Promise<StoredReconciliationProblem | undefined>;
  /** Records a problem applied; false when it already was. */
  resolveProblem(resolution: ReconciliationResolution): Promise<boolean>;
}

/** Customers' wallet accounts bound to merchants (docs/ewallets.md#account-binding). */
export interface BindingStore {
  /**
   * A new binding, with the answer kept under its X-EXTERNAL-ID in the same transaction; a
   * merchant's partnerReferenceNo taken already is a UniqueViolation.
   */
  insertBinding(binding: AccountBinding, idempotency?: IdempotencyRecord): Promise<void>;
  findBinding(key: BindingKey): Promise<AccountBinding | undefined>;
  /**
   * Up to `limit` bindings approved at a connected wallet whose authCode lapsed at `now` untraded:
   * they still hold the wallet's customer token (BindingService.releaseUntraded).
   */
  findUntradedBindings(now: number, limit: number): Promise<AccountBinding[]>;
  /**
   * Changes the binding `key` names while its status is one of `from` (and, with `options.before`,
   * while that expiry is ahead of its `now`), in one statement: of two at once, one wins; with
   * `options.idempotency`, the answer is kept in the same transaction. The binding after, or
   * undefined when none matched.
   */
  changeBinding(
    key: BindingKey,
    from: readonly BindingStatus[],
    change: BindingChange,
    at: number,
    options?: BindingChangeOptions,
  ): Promise<AccountBinding | undefined>;
}

/** Merchant users (docs/merchant-users.md): who signs in to a merchant's dashboard. */
export interface MerchantUserStore {
  /** A new user; an email taken already (by any merchant) is a UniqueViolation. */
  insertMerchantUser(user: MerchantUser): Promise<void>;
  findMerchantUser(key: MerchantUserKey): Promise<MerchantUser | undefined>;
  /** A merchant's users, oldest first. */
  listMerchantUsers(merchantId: string): Promise<MerchantUser[]>;
  /** Changes a user while `guard` holds, in one statement; the user after, or undefined. */
  changeMerchantUser(
    id: string,
    change: MerchantUserChange,
    at: number,
    guard?: MerchantUserGuard,
  ): Promise<MerchantUser | undefined>;
  /**
   * Counts a sign-in attempt before its password or code is tried, and locks the account at the
   * limit, in one statement; the user after, or undefined when it is locked.
   */
  claimSignInAttempt(attempt: SignInFailure): Promise<MerchantUser | undefined>;
}

/** Payment links (docs/payment-links.md); their payments are the transactions that name them. */
export interface PaymentLinkStore {
  insertPaymentLink(link: PaymentLink): Promise<void>;
  findPaymentLink(id: string): Promise<PaymentLink | undefined>;
  /** A merchant's links, newest first, `limit` of them made before `before`. */
  listPaymentLinks(
    merchantId: string,
    limit: number,
    before?: { createdAt: number; id: string },
  ): Promise<PaymentLink[]>;
  /** Deactivates an active link; the link after, or undefined when it was not active. */
  deactivatePaymentLink(id: string, at: number): Promise<PaymentLink | undefined>;
  /** The payments made through a link, newest first. */
  paymentsOfLink(linkId: string, limit: number): Promise<LinkPayment[]>;
  /** The references of a link's payments still under way (01 to 03), newest first. */
  openPaymentsOfLink(linkId: string, limit: number): Promise<string[]>;
  /** Whether any payment of a link was paid (00 or 04). */
  isLinkPaid(linkId: string): Promise<boolean>;
}

/**
 * The Store speaks domain verbs; every verb is one database transaction. It is the sum of its
 * concerns, each written once for both engines where they agree (store/parts/, store/sql-store.ts).
 */
export interface Store
  extends StoreLifecycle,
    SettingsStore,
    ClientStore,
    AccessStore,
    TransactionStore,
    OutboxStore,
    StatisticsStore,
    CertificationStore,
    BindingStore,
    MerchantUserStore,
    PaymentLinkStore,
    BooksStore {}

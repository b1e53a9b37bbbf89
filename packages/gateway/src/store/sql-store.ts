import type {
  AccountBinding,
  BindingChange,
  BindingChangeOptions,
  BindingKey,
  BindingStatus,
} from '../records/binding-records.ts';
import type {
  LedgerCheckpoint,
  LedgerFilter,
  NewLedgerEntry,
  ReconciliationRecord,
  ReconciliationResolution,
  SettlementFilter,
  SettlementRecord,
  SettlementRun,
  StoredReconciliationProblem,
} from '../records/book-records.ts';
import type { PaymentLink } from '../records/link-records.ts';
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
  SandboxTransferRecord,
} from '../records/payout-records.ts';
import type { ProviderPatch, ProviderRecord } from '../records/provider-records.ts';
import type {
  AdminKeyRecord,
  AuditEntry,
  AuditOutcome,
  CertificationRecord,
  IdempotencyKey,
  IdempotencyRecord,
  MerchantPatch,
  MerchantRecord,
  NotificationFilter,
  PageRequest,
  TransactionFilter,
  TransactionKind,
  TransactionSearch,
} from '../records/records.ts';
import * as access from './parts/access.ts';
import * as bindings from './parts/bindings.ts';
import * as certifications from './parts/certifications.ts';
import * as clients from './parts/clients.ts';
import { MERCHANTS, PROVIDERS, type SecretRotation } from './parts/clients.ts';
import * as ledger from './parts/ledger.ts';
import * as merchantUsers from './parts/merchant-users.ts';
import * as outbox from './parts/outbox.ts';
import * as paymentLinks from './parts/payment-links.ts';
import * as payouts from './parts/payouts.ts';
import * as reconciliations from './parts/reconciliations.ts';
import * as sandboxBank from './parts/sandbox-bank.ts';
import * as secrets from './parts/secrets.ts';
import * as settings from './parts/settings.ts';
import * as settlements from './parts/settlements.ts';
import * as statistics from './parts/statistics.ts';
import * as transactions from './parts/transactions.ts';
import type { RecordCache } from './record-cache.ts';
import type { Sql } from './sql.ts';
import type { PortalLinkUse } from './store.ts';

/**
 * What both stores do alike, by concern (store/parts/: settings, clients, access and audit,
 * certifications, transactions and the outbox as read, console statistics), each statement
 * written once. A store supplies its engine (`sql`) and its caches, and writes itself only what
 * its engine does its own way: migrations, the status change and new transactions, claims and
 * attempts, VA numbers, retention, resealing.
 */
export abstract class SqlStore {
  protected abstract readonly sql: Sql;
  protected abstract readonly merchantCache: RecordCache<MerchantRecord>;
  protected abstract readonly providerCache: RecordCache<ProviderRecord>;
  /**
   * Runs `work` as one database transaction on its own statements. With `lockKey`, no other
   * transaction holding the same key (on any instance) overlaps it. On SQLite, `work` must await
   * nothing but the statements it runs.
   */
  protected abstract transaction<T>(work: (sql: Sql) => Promise<T>, lockKey?: number): Promise<T>;

  countSecretsByHead(headChars: number, settings: ReadonlySet<string>) {
    return secrets.countSecretsByHead(this.sql, headChars, settings);
  }

  getSetting(key: string) {
    return settings.getSetting(this.sql, key);
  }
  getOrCreateSetting(key: string, create: () => string) {
    return settings.getOrCreateSetting(this.sql, key, create);
  }

  private async cached<T extends MerchantRecord | ProviderRecord>(
    cache: RecordCache<T>,
    table: clients.ClientTable<T, unknown>,
    by: 'id' | 'client_key',
    key: string,
  ): Promise<T | undefined> {
    const hit = cache.get(by, key);
    if (hit) return hit;
    const generation = cache.generation();
    const found = await clients.findClient(this.sql, table, by, key);
    if (found) cache.remember(found, generation);
    return found;
  }
  /** A write to clients: the cache forgets after it, so no read from before it is served again. */
  private async written<T>(cache: { forget(): void }, work: Promise<T>): Promise<T> {
    try {
      return await work;
    } finally {
      cache.forget();
    }
  }

  insertMerchant(merchant: MerchantRecord) {
    return this.written(this.merchantCache, clients.insertClient(this.sql, MERCHANTS, merchant));
  }
  findMerchantById(id: string) {
    return this.cached(this.merchantCache, MERCHANTS, 'id', id);
  }
  findMerchantByClientKey(clientKey: string) {
    return this.cached(this.merchantCache, MERCHANTS, 'client_key', clientKey);
  }
  countMerchants() {
    return clients.countMerchants(this.sql);
  }
  listMerchants(page: PageRequest) {
    return clients.listClients(this.sql, MERCHANTS, page);
  }
  updateMerchant(id: string, patch: MerchantPatch, updatedAt: number) {
    return this.written(this.merchantCache, clients.updateClient(this.sql, MERCHANTS, id, patch, updatedAt));
  }
  rotateMerchantSecret(id: string, rotation: SecretRotation) {
    return this.written(this.merchantCache, clients.rotateClientSecret(this.sql, MERCHANTS, id, rotation));
  }

  insertProvider(provider: ProviderRecord) {
    return this.written(this.providerCache, clients.insertClient(this.sql, PROVIDERS, provider));
  }
  findProviderById(id: string) {
    return this.cached(this.providerCache, PROVIDERS, 'id', id);
  }
  findProviderByClientKey(clientKey: string) {
    return this.cached(this.providerCache, PROVIDERS, 'client_key', clientKey);
  }
  findBanks(bankCode: string): Promise<ProviderRecord[]> {
    return clients.findBanks(this.sql, bankCode);
  }
  findGatewayQrisAcquirer() {
    return clients.findGatewayQrisAcquirer(this.sql);
  }
  findWallet(payOption: string) {
    return clients.findWallet(this.sql, payOption);
  }
  findPayoutBank() {
    return clients.findPayoutBank(this.sql);
  }

  insertBinding(binding: AccountBinding, idempotency?: IdempotencyRecord) {
    return this.transaction(async (sql) => {
      await bindings.insertBinding(sql, binding);
      if (idempotency) await transactions.insertIdempotencyRow(sql, idempotency, binding.createdAt);
    });
  }
  findBinding(key: BindingKey) {
    return bindings.findBinding(this.sql, key);
  }
  findUntradedBindings(now: number, limit: number) {
    return bindings.findUntradedBindings(this.sql, now, limit);
  }
  changeBinding(
    key: BindingKey,
    from: readonly BindingStatus[],
    change: BindingChange,
    at: number,
    options: BindingChangeOptions = {},
  ) {
    const { before, idempotency } = options;
    if (!idempotency) return bindings.changeBinding(this.sql, key, from, change, at, before);
    return this.transaction(async (sql) => {
      const changed = await bindings.changeBinding(sql, key, from, change, at, before);
      if (changed) await transactions.insertIdempotencyRow(sql, idempotency, at);
      return changed;
    });
  }

  insertMerchantUser(user: MerchantUser) {
    return merchantUsers.insertMerchantUser(this.sql, user);
  }
  findMerchantUser(key: MerchantUserKey) {
    return merchantUsers.findMerchantUser(this.sql, key);
  }
  listMerchantUsers(merchantId: string) {
    return merchantUsers.listMerchantUsers(this.sql, merchantId);
  }
  changeMerchantUser(id: string, change: MerchantUserChange, at: number, guard?: MerchantUserGuard) {
    return merchantUsers.changeMerchantUser(this.sql, id, change, at, guard);
  }
  claimSignInAttempt(attempt: SignInFailure) {
    return merchantUsers.claimSignInAttempt(this.sql, attempt);
  }

  insertPaymentLink(link: PaymentLink) {
    return paymentLinks.insertPaymentLink(this.sql, link);
  }
  findPaymentLink(id: string) {
    return paymentLinks.findPaymentLink(this.sql, id);
  }
  listPaymentLinks(merchantId: string, limit: number, before?: { createdAt: number; id: string }) {
    return paymentLinks.listPaymentLinks(this.sql, merchantId, limit, before);
  }
  deactivatePaymentLink(id: string, at: number) {
    return paymentLinks.deactivatePaymentLink(this.sql, id, at);
  }
  paymentsOfLink(linkId: string, limit: number) {
    return paymentLinks.paymentsOfLink(this.sql, linkId, limit);
  }
  openPaymentsOfLink(linkId: string, limit: number) {
    return paymentLinks.openPaymentsOfLink(this.sql, linkId, limit);
  }
  isLinkPaid(linkId: string) {
    return paymentLinks.isLinkPaid(this.sql, linkId);
  }

  insertSandboxTransfer(transfer: SandboxTransferRecord) {
    return sandboxBank.insertSandboxTransfer(this.sql, transfer);
  }
  findSandboxTransfer(by: { partnerReferenceNo: string } | { referenceNo: string }) {
    return sandboxBank.findSandboxTransfer(this.sql, by);
  }
  endSandboxTransfer(partnerReferenceNo: string, at: number) {
    return sandboxBank.endSandboxTransfer(this.sql, partnerReferenceNo, at);
  }
  listProviders(page: PageRequest) {
    return clients.listClients(this.sql, PROVIDERS, page);
  }
  updateProvider(id: string, patch: ProviderPatch, updatedAt: number) {
    return this.written(this.providerCache, clients.updateClient(this.sql, PROVIDERS, id, patch, updatedAt));
  }
  rotateProviderSecret(id: string, rotation: SecretRotation) {
    return this.written(this.providerCache, clients.rotateClientSecret(this.sql, PROVIDERS, id, rotation));
  }
  listInbound(providerId: string, page: PageRequest) {
    return clients.listInbound(this.sql, providerId, page);
  }

  insertAdminKey(key: AdminKeyRecord) {
    return access.insertAdminKey(this.sql, key);
  }
  findAdminKeyByHash(tokenSha256: string) {
    return access.findAdminKeyByHash(this.sql, tokenSha256);
  }
  listAdminKeys() {
    return access.listAdminKeys(this.sql);
  }
  revokeAdminKey(id: string, at: number) {
    return access.revokeAdminKey(this.sql, id, at);
  }
  endConsoleSessions(who: { adminKeyId: string } | { merchantId: string }, at: number) {
    const work = access.endConsoleSessions(this.sql, who, at);
    return 'merchantId' in who ? this.written(this.merchantCache, work) : work;
  }
  usePortalLink(use: PortalLinkUse, forgetBefore: number) {
    return access.usePortalLink(this.sql, use, forgetBefore);
  }
  isPortalLinkUsed(nonce: string) {
    return access.isPortalLinkUsed(this.sql, nonce);
  }
  touchAdminKey(id: string, at: number) {
    return access.touchAdminKey(this.sql, id, at);
  }
  upsertBootstrapAdminKey(name: string, tokenSha256: string, at: number) {
    return access.upsertBootstrapAdminKey(this.sql, name, tokenSha256, at);
  }
  appendAudit(entry: AuditEntry) {
    return access.appendAudit(this.sql, entry);
  }
  appendAuditOutcome(auditId: number, outcome: AuditOutcome) {
    return access.appendAuditOutcome(this.sql, auditId, outcome);
  }
  listAudit(page: PageRequest, filter: { target?: string } = {}) {
    return access.listAudit(this.sql, page, filter);
  }

  insertCertification(run: CertificationRecord) {
    return certifications.insertCertification(this.sql, run);
  }
  listCertifications(merchantId: string, suite: string) {
    return certifications.listCertifications(this.sql, merchantId, suite);
  }
  findCertification(id: string) {
    return certifications.findCertification(this.sql, id);
  }

  findTransaction(referenceNo: string) {
    return transactions.findTransaction(this.sql, referenceNo);
  }
  findTransactionByPartnerRef(merchantId: string, kind: TransactionKind, partnerReferenceNo: string) {
    return transactions.findTransactionByPartnerRef(this.sql, merchantId, kind, partnerReferenceNo);
  }
  findTransactionByVirtualAccountNo(virtualAccountNo: string) {
    return transactions.findTransactionByVirtualAccountNo(this.sql, virtualAccountNo);
  }
  findTransactionByCheckoutId(checkoutId: string) {
    return transactions.findTransactionByCheckoutId(this.sql, checkoutId);
  }
  listTransactions(filter: TransactionFilter, page: PageRequest) {
    return transactions.listTransactions(this.sql, filter, page);
  }
  statusHistory(referenceNo: string) {
    return transactions.statusHistory(this.sql, referenceNo);
  }
  findDueExpiries(now: number, limit: number) {
    return transactions.findDueExpiries(this.sql, now, limit);
  }
  findRefund(merchantId: string, partnerRefundNo: string) {
    return transactions.findRefund(this.sql, merchantId, partnerRefundNo);
  }
  findVaPayment(providerId: string, paymentRequestId: string) {
    return transactions.findVaPayment(this.sql, providerId, paymentRequestId);
  }
  findIdempotency(key: IdempotencyKey) {
    return transactions.findIdempotency(this.sql, key);
  }

  notificationsOf(referenceNo: string) {
    return outbox.notificationsOf(this.sql, referenceNo);
  }
  findNotification(id: string) {
    return outbox.findNotification(this.sql, id);
  }
  listNotifications(filter: NotificationFilter, page: PageRequest) {
    return outbox.listNotifications(this.sql, filter, page);
  }
  attemptsOf(notificationId: string) {
    return outbox.attemptsOf(this.sql, notificationId);
  }
  replayNotification(id: string, now: number) {
    return outbox.replayNotification(this.sql, id, now);
  }
  recoverDead(merchantId: string, since: number, now: number) {
    return outbox.recoverDead(this.sql, merchantId, since, now);
  }
  undelivered(merchantId: string | undefined, limit: number) {
    return outbox.undelivered(this.sql, merchantId, limit);
  }
  deliveryBacklog() {
    return outbox.deliveryBacklog(this.sql);
  }

  countTransactionsByStatus(since: number) {
    return statistics.countTransactionsByStatus(this.sql, since);
  }
  countNotificationsByState() {
    return statistics.countNotificationsByState(this.sql);
  }
  countInboundByProvider(since: number) {
    return statistics.countInboundByProvider(this.sql, since);
  }
  attemptsPerMinute(since: number) {
    return statistics.attemptsPerMinute(this.sql, since);
  }
  searchTransactions(filter: TransactionSearch, limit: number, offset: number) {
    return statistics.searchTransactions(this.sql, filter, limit, offset);
  }

  async ledgerStartedAt(): Promise<number> {
    return Number((await this.getSetting('ledger_started_at')) ?? 0);
  }
  findPaymentEntry(referenceNo: string) {
    return ledger.findPaymentEntry(this.sql, referenceNo);
  }
  listLedgerEntries(filter: LedgerFilter, page: PageRequest) {
    return ledger.listLedgerEntries(this.sql, filter, page);
  }
  scanLedger(afterId: number, limit: number) {
    return ledger.scanLedger(this.sql, afterId, limit);
  }
  ledgerTotals(merchantId: string) {
    return ledger.ledgerTotals(this.sql, merchantId);
  }
  runningTotals(merchantId: string) {
    return ledger.runningTotals(this.sql, merchantId);
  }
  latestLedgerCheckpoint() {
    return ledger.latestLedgerCheckpoint(this.sql);
  }
  saveLedgerCheckpoint(cp: LedgerCheckpoint) {
    return ledger.saveLedgerCheckpoint(this.sql, cp);
  }
  knownRefunds(refundNos: string[]) {
    return ledger.knownRefunds(this.sql, refundNos);
  }
  settlementStatuses(ids: string[]) {
    return ledger.settlementStatuses(this.sql, ids);
  }
  payoutStates(ids: string[]) {
    return ledger.payoutStates(this.sql, ids);
  }
  totalsAgainstEntries(merchantId: string) {
    return ledger.totalsAgainstEntries(this.sql, merchantId);
  }
  ledgerMerchants() {
    return ledger.ledgerMerchants(this.sql);
  }
  paidTransactionsByReference(referenceNos: string[]) {
    return ledger.paidTransactionsByReference(this.sql, referenceNos);
  }
  paidTransactionsOfProvider(providerId: string, since: number, until: number, page: PageRequest) {
    return ledger.paidTransactionsOfProvider(this.sql, providerId, since, until, page);
  }
  paidTransactionsSince(since: number, page: PageRequest) {
    return ledger.paidTransactionsSince(this.sql, since, page);
  }
  refundsSince(since: number) {
    return ledger.refundsSince(this.sql, since);
  }
  knownCauses() {
    return ledger.knownCauses(this.sql);
  }

  unsettledQueueProblems(limit: number) {
    return settlements.unsettledQueueProblems(this.sql, limit);
  }
  merchantsWithUnsettled(cutoff: number) {
    return settlements.merchantsWithUnsettled(this.sql, cutoff);
  }
  settleMerchant(run: SettlementRun, entryFor: (s: SettlementRecord) => NewLedgerEntry) {
    return this.transaction((sql) => settlements.settleMerchant(sql, run, entryFor), SETTLEMENT_LOCK);
  }
  findSettlement(id: string) {
    return settlements.findSettlement(this.sql, id);
  }
  listSettlements(filter: SettlementFilter, limit: number) {
    return settlements.listSettlements(this.sql, filter, limit);
  }
  settlementEntries(id: string) {
    return settlements.settlementEntries(this.sql, id);
  }
  settlementEntriesPage(id: string, afterId: number, limit: number) {
    return settlements.settlementEntriesPage(this.sql, id, afterId, limit);
  }
  payOut(id: string, bankReference: string, at: number, entryFor: (s: SettlementRecord) => NewLedgerEntry) {
    return this.transaction((sql) => settlements.payOut(sql, id, bankReference, at, entryFor));
  }
  startSettlementPayout(payout: payouts.NewPayout) {
    return this.transaction((sql) => payouts.startSettlementPayout(sql, payout));
  }
  findPayout(id: string) {
    return payouts.findPayout(this.sql, id);
  }
  listPayouts(filter: PayoutFilter, limit: number) {
    return payouts.listPayouts(this.sql, filter, limit);
  }
  payoutExchanges(id: string) {
    return payouts.payoutExchanges(this.sql, id);
  }
  recordPayoutAnswer(
    id: string,
    change: PayoutChange,
    exchange: PayoutExchangeRecord | null,
    at: number,
    postings: payouts.PayoutPostings,
  ) {
    return this.transaction((sql) => payouts.recordPayoutAnswer(sql, id, change, exchange, at, postings));
  }
  startDisbursement(disbursement: payouts.NewDisbursement) {
    return this.transaction((sql) => payouts.startDisbursement(sql, disbursement));
  }
  findDisbursement(merchantId: string, by: { merchantReferenceNo?: string; referenceNo?: string }) {
    return payouts.findDisbursement(this.sql, merchantId, by);
  }
  disbursementFacts() {
    return payouts.disbursementFacts(this.sql);
  }
  unpaidAutomaticSettlements(since: number, before: number, limit: number) {
    return payouts.unpaidAutomaticSettlements(this.sql, since, before, limit);
  }
  noteSettlementPayoutError(id: string, error: string) {
    return payouts.noteSettlementPayoutError(this.sql, id, error);
  }
  claimDuePayouts(now: number, owner: string, leaseUntil: number, limit: number) {
    return payouts.claimDuePayouts(this.sql, now, owner, leaseUntil, limit);
  }
  claimPayout(id: string, now: number, owner: string, leaseUntil: number) {
    return payouts.claimPayout(this.sql, id, now, owner, leaseUntil);
  }
  approvePayout(
    id: string,
    approvedBy: string,
    at: number,
    claim: { owner: string; leaseUntil: number; nextCheckAt: number },
  ) {
    return payouts.approvePayout(this.sql, id, approvedBy, at, claim);
  }
  rejectPayout(id: string, rejectedBy: string, at: number) {
    return this.transaction((sql) => payouts.rejectPayout(sql, id, rejectedBy, at));
  }
  insertReconciliationProblems(reconciliationId: string, problems: StoredReconciliationProblem[]) {
    return reconciliations.insertReconciliationProblems(this.sql, reconciliationId, problems);
  }
  insertReconciliation(run: ReconciliationRecord) {
    return reconciliations.insertReconciliation(this.sql, run);
  }
  findReconciliation(id: string) {
    return reconciliations.findReconciliation(this.sql, id);
  }
  listReconciliations(providerId: string, limit: number) {
    return reconciliations.listReconciliations(this.sql, providerId, limit);
  }
  reconciliationProblems(id: string, page: PageRequest) {
    return reconciliations.reconciliationProblems(this.sql, id, page);
  }
  findReconciliationProblem(id: string, line: number) {
    return reconciliations.findReconciliationProblem(this.sql, id, line);
  }
  resolveProblem(resolution: ReconciliationResolution) {
    return reconciliations.resolveProblem(this.sql, resolution);
  }
}

/** The advisory lock settlement runs take on PostgreSQL (SQLite's writes are serial anyway). */
const SETTLEMENT_LOCK = 7061686762;

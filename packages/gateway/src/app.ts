import { randomUUID } from 'node:crypto';
import type { IncomingMessage } from 'node:http';
import Fastify, { type FastifyInstance, type FastifyRequest } from 'fastify';
import { Registry } from 'prom-client';
import { createLedgerService } from './books/ledger-service.ts';
import { createReconciliationService } from './books/reconciliation-service.ts';
import { createSettlementScheduler, type SettlementScheduler } from './books/settlement-scheduler.ts';
import { createSettlementService } from './books/settlement-service.ts';
import { createDisbursementService } from './payouts/disbursement-service.ts';
import { createPayoutChecker, createPayoutService, type PayoutChecker } from './payouts/payout-service.ts';
import { createReportedPaymentApplier } from './providers/reported-payment.ts';
import './http/fastify-types.ts';
import { type AddressGuard, createAddressGuard, type OutboundPolicy, trustedCasWith } from './address-guard.ts';
import { type BootstrapResult, bootstrap } from './bootstrap.ts';
import { createCertificationService } from './certification/certification-service.ts';
import type { EventStreams } from './checkout/checkout-events.ts';
import { type CheckoutLimits, checkoutRoutes } from './checkout/checkout-routes.ts';
import { type CheckoutLive, createCheckoutLive } from './checkout/live.ts';
import { followStatusChanges, liveStatusReader } from './checkout/live-feed.ts';
import type { Clock } from './clock.ts';
import type { Config } from './config.ts';
import { consoleRoutes } from './console/console-routes.ts';
import { createDeliveryMetrics, type DeliveryMetrics } from './delivery/delivery-metrics.ts';
import { createDispatcher, type Dispatcher } from './delivery/dispatcher.ts';
import { createNotificationOperations } from './delivery/notification-operations.ts';
import { createPruner, type Pruner } from './delivery/retention.ts';
import { createSender } from './delivery/send.ts';
import { registerAudit } from './http/admin-audit.ts';
import { adminAuth } from './http/admin-auth.ts';
import { refuseBadAdminText } from './http/admin-input.ts';
import { createAuthFailureLimiter } from './http/auth-failures.ts';
import { clientErrorHandler, frameworkErrorHandler, registerErrorHandler } from './http/error-handler.ts';
import { countStoreCommits, createMetrics, type Metrics } from './http/metrics.ts';
import { RouteDocs } from './http/openapi/route-docs.ts';
import { BODY_LIMIT_BYTES, registerRawBody } from './http/raw-body.ts';
import { accessTokenB2bRoute } from './http/routes/access-token-b2b.ts';
import { accessTokenB2b2cRoute } from './http/routes/access-token-b2b2c.ts';
import { adminAccessRoutes } from './http/routes/admin-access.ts';
import { adminBookRoutes } from './http/routes/admin-books.ts';
import { adminCertificationRoutes } from './http/routes/admin-certifications.ts';
import { adminKeyRoutes } from './http/routes/admin-keys.ts';
import { adminMerchantUserRoutes } from './http/routes/admin-merchant-users.ts';
import { adminMerchantRoutes } from './http/routes/admin-merchants.ts';
import { adminNotificationRoutes } from './http/routes/admin-notifications.ts';
import { adminPaymentLinkRoutes } from './http/routes/admin-payment-links.ts';
import { adminPayoutRoutes } from './http/routes/admin-payouts.ts';
import { adminPortalLinkRoutes } from './http/routes/admin-portal-links.ts';
import { adminProviderRoutes } from './http/routes/admin-providers.ts';
import { adminReconciliationRoutes } from './http/routes/admin-reconciliations.ts';
import { adminTransactionRoutes } from './http/routes/admin-transactions.ts';
import { healthRoutes } from './http/routes/health.ts';
import { openapiRoutes } from './http/routes/openapi.ts';
import { paymentRoutes } from './http/routes/payments.ts';
import { providerApiRoutes } from './http/routes/provider-api.ts';
import { qrImageRoutes } from './http/routes/qr-image.ts';
import { sandboxRoutes } from './http/routes/sandbox.ts';
import { sandboxBankRoutes } from './http/routes/sandbox-bank.ts';
import { limitServer } from './http/server-limits.ts';
import { isTls, serverFactoryFor } from './http/tls.ts';
import type { Logger } from './logger.ts';
import { createMerchantService } from './merchants/merchant-service.ts';
import { createMerchantUserService, MERCHANT_SIGN_IN_FAILURES } from './merchants/merchant-users.ts';
import { methodOfTxn } from './methods/index.ts';
import { createAdminKeyService } from './operators/admin-keys.ts';
import { createAuditLog } from './operators/audit-log.ts';
import { createMasterKeyService } from './operators/master-keys.ts';
import { createOverviewService } from './operators/overview.ts';
import { createSessionService } from './operators/sessions.ts';
import { createBindingService } from './payments/binding-service.ts';
import { createCheckoutReads } from './payments/checkout-reads.ts';
import { createEwalletService } from './payments/ewallet-service.ts';
import { createExpirySweeper, type ExpirySweeper } from './payments/expiry.ts';
import { createPaymentLinkService } from './payments/payment-links.ts';
import { createQrImages } from './payments/qr-image.ts';
import { createQrisService, type QrisService } from './payments/qris-service.ts';
import { createStatusChanger, type StatusChanger } from './payments/status-change.ts';
import { createTransactionReads } from './payments/transaction-reads.ts';
import type { UpstreamProvider } from './payments/upstream.ts';
import { createVaService, type VaService } from './payments/va-service.ts';
import { createInboundService, type InboundService } from './providers/inbound-service.ts';
import { createPayoutBank, type PayoutBankClient } from './providers/payout-bank.ts';
import { createProviderService } from './providers/provider-service.ts';
import { createSandboxBank } from './providers/sandbox-bank.ts';
import { createSandboxPayer } from './providers/sandbox-providers.ts';
import { createSnapClient, type SnapClient } from './providers/snap-client.ts';
import { createUpstreamAcquirer } from './providers/upstream-acquirer.ts';
import { createUpstreamWallet } from './providers/upstream-wallet.ts';
import type { ProviderKind } from './records/provider-records.ts';
import { loadMasterKey, type MasterKeyResult } from './secrets/master-key.ts';
import type { Sealer } from './secrets/sealer.ts';
import { sealedStore, upgradeStoredSecrets } from './store/sealed-store.ts';
import type { Store } from './store/store.ts';
import { createRateLimiter } from './tokens/rate-limit.ts';
import { createTokenService, type TokenService } from './tokens/token-service.ts';

export interface AppDeps {
  config: Config;
  store: Store;
  clock: Clock;
  logger: Logger;
  /** Seals secrets at rest; the store given to buildApp is already sealedStore(…, sealer). */
  sealer: Sealer;
  /** Keys every instance shares through the store (bootstrap.ts). */
  keys: Pick<BootstrapResult, 'jwtKey' | 'adminTokenSha256' | 'callbackPrivateKey' | 'callbackPublicKeyPem'>;
  metrics?: Metrics;
  /** Requests a minute per client address on the checkout pages (default DEFAULT_CHECKOUT_LIMITS). */
  checkoutLimits?: Partial<CheckoutLimits>;
  /** How often the dispatcher looks for due work nobody woke it for (default 250 ms; tests set it long). */
  deliveryPollMs?: number;
}

export interface Gateway {
  app: FastifyInstance;
  /** The configuration it was built with (publicUrl follows the bound address when not set). */
  config: Config;
  /** The store as the gateway uses it: secrets sealed at rest, opened when read. */
  store: Store;
  tokens: TokenService;
  metrics: Metrics;
  qris: QrisService;
  va: VaService;
  changer: StatusChanger;
  inbound: InboundService;
  /** The one outbound SNAP client: upstream acquirers, and the sandbox bank and acquirer. */
  snapClient: SnapClient;
  /** The payout bank, as a SNAP client of it (docs/payouts.md). */
  payoutBank: PayoutBankClient;
  expiry: ExpirySweeper;
  /** SNAPGATE_RETENTION_DAYS; started by main.ts. */
  retention: Pruner;
  /** Not started by buildApp: main.ts (or a test) starts it. */
  dispatcher: Dispatcher;
  deliveryMetrics: DeliveryMetrics;
  /** SNAPGATE_SETTLEMENT_SCHEDULE; started by main.ts. */
  settlementScheduler: SettlementScheduler;
  /** Asks the bank about payouts not yet known paid or failed (SNAPGATE_TRANSFER_STATUS_SCHEDULE); started by main.ts. */
  payoutChecker: PayoutChecker;
  /** Who waits for which transaction's status (the hosted checkout's pages). */
  live: CheckoutLive;
  /** The checkout pages' open event streams on this instance. */
  checkoutStreams: EventStreams;
  /** The operator services the admin API, the console and the portal share. */
  operators: OperatorServices;
}

const RESPONSE_CODE = /"responseCode":"(\d{7})"/;
const CODE = Symbol('snapgate.responseCode');
type Timed = FastifyRequest & { [CODE]?: string };

/** `X-Request-Id` as the client sent it when it is a sane token, else a fresh one. */
function requestIdOf(req: IncomingMessage): string {
  const given = req.headers['x-request-id'];
  return typeof given === 'string' && /^[A-Za-z0-9._:-]{1,128}$/.test(given) ? given : randomUUID();
}

/** `SNAPGATE_TRUST_PROXY=<n>`: believe the nearest n proxies of X-Forwarded-For. */
const trustHops = (n: number) => (_address: string, hop: number) => hop < n;

/** Builds the gateway's Fastify instance; never listens (main.ts and tests do). */
export function buildApp(deps: AppDeps): Gateway {
  const { config, store, clock, logger } = deps;
  const metrics = deps.metrics ?? createMetrics();
  const app = Fastify({
    logger: false,
    bodyLimit: BODY_LIMIT_BYTES,
    // With a serverFactory Fastify applies none of its server timeouts: limitServer sets them
    // (no request may hang a connection: slow senders are cut off).
    return503OnClosing: true,
    serverFactory: serverFactoryFor(config),
    genReqId: requestIdOf,
    trustProxy: typeof config.trustProxy === 'number' ? trustHops(config.trustProxy) : config.trustProxy,
    routerOptions: { maxParamLength: 256 },
    frameworkErrors: frameworkErrorHandler,
    clientErrorHandler,
  });
  limitServer(app.server, config.server);
  registerRawBody(app);
  registerErrorHandler(app, logger);

  // Callback-style hooks: an async hook costs a promise and a tick on every request.
  app.addHook('onSend', (request, reply, payload, done) => {
    reply.header('x-request-id', request.id);
    const operation = request.routeOptions.config?.operation;
    if (operation !== undefined) {
      (request as Timed)[CODE] =
        typeof payload === 'string'
          ? (RESPONSE_CODE.exec(payload)?.[1] ?? String(reply.statusCode))
          : String(reply.statusCode);
    }
    done(null, payload);
  });
  // Counted once the answer is written: Fastify's own timer (started before the first hook,
  // stopped when the answer is written) covers the whole exchange.
  app.addHook('onResponse', (request, reply, done) => {
    const operation = request.routeOptions.config?.operation;
    const code = (request as Timed)[CODE];
    if (operation !== undefined && code !== undefined) {
      metrics.snapRequests.inc({ operation, responseCode: code });
      metrics.snapLatency.observe({ operation, responseCode: code }, reply.elapsedTime / 1000);
    }
    done();
  });

  const tokens = createTokenService({
    store,
    clock,
    jwtKey: deps.keys.jwtKey,
    tokenTtlSec: config.tokenTtlSec,
    clockSkewSec: config.clockSkewSec,
    rateLimiter: createRateLimiter(config.rateLimitPerMin),
    mode: config.mode,
  });
  const deliveryMetrics = createDeliveryMetrics(metrics.registry);
  countStoreCommits(metrics.registry, store);
  const outbound = outboundPolicyOf(config);
  const sender = createSender({ timeoutMs: config.callbackTimeoutMs, outbound });
  const dispatcher = createDispatcher({
    store,
    clock,
    logger,
    sender,
    metrics: deliveryMetrics,
    gatewayPrivateKey: deps.keys.callbackPrivateKey,
    retryScheduleMs: config.retryScheduleMs,
    callbackTimeoutMs: config.callbackTimeoutMs,
    pollMs: deps.deliveryPollMs,
  });
  app.addHook('onClose', async () => {
    await dispatcher.stop();
    await sender.close();
    await snapClient.close();
  });
  const checkoutReads = createCheckoutReads(store);
  const live = createCheckoutLive({
    read: liveStatusReader(checkoutReads),
    onError: (err, referenceNo) => logger.warn({ err, referenceNo }, 'checkout live status: a page was not told'),
  });
  // On PostgreSQL, every instance's changes (NOTIFY); this instance's own come through onChanged too.
  const stopFollowing = followStatusChanges(store.watchStatusChanges?.bind(store), live);
  // preClose: open event streams end before the server waits for its connections to close.
  app.addHook('preClose', async () => {
    stopFollowing();
    await live.close();
  });
  const changer = createStatusChanger({
    store,
    firstAttemptDelayMs: config.retryScheduleMs[0] ?? 0,
    onNotified: () => dispatcher.wake(),
    onChanged: (change) => live.publish(change),
    claimer: dispatcher,
  });
  const snapClient = createSnapClient({ clock, timeoutMs: config.upstreamTimeoutMs, outbound });
  const upstreamDeps = { store, changer, client: snapClient, timeoutMs: config.upstreamTimeoutMs, logger };
  const upstream = createUpstreamAcquirer(upstreamDeps);
  const wallets = createUpstreamWallet(upstreamDeps);
  /** Who settles an upstream payment past its validity: the kind of provider its method has. */
  const reconcilers: Partial<Record<ProviderKind, UpstreamProvider>> = { acquirer: upstream, ewallet: wallets };
  const payoutBank = createPayoutBank({
    store,
    client: snapClient,
    clock,
    mode: config.mode,
    timeoutMs: config.upstreamTimeoutMs,
    selfUrl: () => selfUrlOf(app),
  });
  const qris = createQrisService({ store, changer, publicUrl: () => config.publicUrl, upstream, mode: config.mode });
  const va = createVaService({ store, changer, mode: config.mode, publicUrl: () => config.publicUrl });
  const bindings = createBindingService({
    store,
    mode: config.mode,
    publicUrl: () => config.publicUrl,
    wallets,
    logger,
  });
  const ewallet = createEwalletService({
    store,
    changer,
    mode: config.mode,
    publicUrl: () => config.publicUrl,
    guard: outbound.guard,
    wallets,
    logger,
    bindings,
    // The sandbox wallet debits a bound account at once, through its notify door as ever.
    payBound: async (referenceNo, binding) =>
      payer?.payEwallet(referenceNo, {
        status: '00',
        payer: { payerName: 'SANDBOX BOUND PAYER', payerRefId: binding.phoneNo ?? '' },
      }),
  });
  const inbound = createInboundService({ store, changer, mode: config.mode });
  const retention = createPruner({ store, clock, logger, retentionDays: config.retentionDays });
  const expiry = createExpirySweeper({
    store,
    changer,
    clock,
    logger,
    alsoDue: (nowMs) => bindings.releaseUntraded(nowMs),
    reconcile(txn, nowMs) {
      const kind = methodOfTxn(txn).provider.kind;
      const reconciler = reconcilers[kind];
      if (!reconciler) throw new TypeError(`no provider of kind ${kind} issues payments: ${txn.referenceNo}`);
      return reconciler.reconcile(txn, nowMs);
    },
  });
  const operators = createOperatorServices({
    config,
    store,
    clock,
    dispatcher,
    inbound,
    guard: outbound.guard,
    logger,
    payoutBank,
  });
  const settlementScheduler = createSettlementScheduler({
    settlements: operators.settlements,
    clock,
    logger,
    schedule: config.settlementSchedule,
    afterSettled: (made) => operators.payouts.payAutomatic(made),
  });
  const payoutChecker = createPayoutChecker(operators.payouts, logger);
  app.addHook('onClose', () => payoutChecker.stop());
  const { merchants, providers, transactions, notifications, adminKeys, audit, sessions } = operators;
  const links = createPaymentLinkService({
    store,
    clock,
    qris,
    va,
    ewallet,
    mode: config.mode,
    publicUrl: () => config.publicUrl,
  });
  const payer =
    config.mode === 'sandbox'
      ? createSandboxPayer({ store, client: snapClient, selfUrl: () => selfUrlOf(app) })
      : undefined;

  // One admin-key check for every route that takes a key: one last-used minute per key.
  // Failed admin-key authentications are limited per address and key prefix, whatever SNAPGATE_RATE_LIMIT says.
  const authFailures = createAuthFailureLimiter({
    clock,
    logger,
    registry: metrics.registry,
    maxFailures: config.authFailureLimit,
  });
  const checkAdminKey = adminAuth({ adminKeys, clock, authFailures });
  // The admin API document's operations, declared with their routes (http/openapi/route-docs.ts).
  const adminDocs = new RouteDocs();
  const snapDocs = new RouteDocs();
  healthRoutes(app, { store, metrics, config, adminAuth: checkAdminKey, docs: adminDocs });
  app.get('/.well-known/snapgate/callback-public-key.pem', { config: { api: 'admin' } }, async (_request, reply) =>
    reply.type('application/x-pem-file').send(deps.keys.callbackPublicKeyPem),
  );
  const mounts = config.snapMounts;
  accessTokenB2bRoute(app, { tokens, mounts, docs: snapDocs });
  accessTokenB2b2cRoute(app, { tokens, bindings, mounts, docs: snapDocs });
  const transfers = createDisbursementService({
    store,
    clock,
    logger,
    bank: payoutBank,
    payouts: operators.payouts,
  });
  paymentRoutes(app, { store, tokens, clock, qris, va, ewallet, bindings, transfers, mounts, docs: snapDocs });
  providerApiRoutes(app, { store, tokens, clock, logger, inbound, mode: config.mode, mounts, docs: snapDocs });
  if (config.mode === 'sandbox') {
    const bank = createSandboxBank({ store, clock, gatewayKey: deps.keys.jwtKey, clockSkewSec: config.clockSkewSec });
    sandboxBankRoutes(app, { bank });
  }
  const qrImages = createQrImages();
  qrImageRoutes(app, {
    store,
    clock,
    limiter: createRateLimiter(config.qrRateLimitPerMin),
    images: qrImages,
    docs: snapDocs,
  });
  const checkoutStreams = checkoutRoutes(app, {
    qrImages,
    reads: checkoutReads,
    live,
    clock,
    logger,
    mode: config.mode,
    publicUrl: () => config.publicUrl,
    payer,
    bindings,
    links,
    limits: deps.checkoutLimits,
  });
  openapiRoutes(app, { config, adminDocs, snapDocs });
  const masterKeys = createMasterKeyService({ store, sealer: deps.sealer });
  const certifications = createCertificationService({
    outbound,
    store,
    clock,
    mode: config.mode,
    callbackTimeoutMs: config.callbackTimeoutMs,
    gatewayPrivateKey: deps.keys.callbackPrivateKey,
    changer,
    qris,
    va,
  });
  consoleRoutes(app, {
    ...operators,
    config,
    clock,
    qris,
    va,
    ewallet,
    links,
    payer,
    authFailures,
    merchantSignIns: createAuthFailureLimiter({
      clock,
      logger,
      // Its own counters (the admin keys' are in the metrics registry): 50 failures a minute per address.
      registry: new Registry(),
      maxFailures: MERCHANT_SIGN_IN_FAILURES,
    }),
    masterKeys,
    certifications,
    selfUrl: () => selfUrlOf(app),
  });
  app.register(
    async (admin) => {
      admin.addHook('onRequest', checkAdminKey);
      admin.addHook('preValidation', refuseBadAdminText);
      registerAudit(admin, { audit, merchants, providers, logger });
      adminMerchantRoutes(admin, { merchants, docs: adminDocs });
      adminPortalLinkRoutes(admin, { sessions, docs: adminDocs });
      adminMerchantUserRoutes(admin, { users: operators.users, docs: adminDocs });
      adminPaymentLinkRoutes(admin, { links, docs: adminDocs });
      adminTransactionRoutes(admin, { transactions, docs: adminDocs });
      adminNotificationRoutes(admin, { notifications, merchants, docs: adminDocs });
      adminProviderRoutes(admin, { providers, docs: adminDocs });
      adminBookRoutes(admin, {
        ledger: operators.ledger,
        settlements: operators.settlements,
        payouts: operators.payouts,
        docs: adminDocs,
      });
      adminPayoutRoutes(admin, { payouts: operators.payouts, docs: adminDocs });
      adminReconciliationRoutes(admin, { reconciliations: operators.reconciliations, docs: adminDocs });
      adminAccessRoutes(admin, { adminKeys, audit, docs: adminDocs });
      adminKeyRoutes(admin, { masterKeys, docs: adminDocs });
      adminCertificationRoutes(admin, { certifications, merchants, docs: adminDocs });
      if (payer) sandboxRoutes(admin, { qris, payer, clock, docs: adminDocs });
    },
    { prefix: '/admin/v1' },
  );
  return {
    app,
    config,
    store,
    tokens,
    metrics,
    qris,
    va,
    changer,
    inbound,
    snapClient,
    payoutBank,
    expiry,
    retention,
    dispatcher,
    deliveryMetrics,
    operators,
    settlementScheduler,
    payoutChecker,
    live,
    checkoutStreams,
  };
}

/**
 * The guard and trusted CAs of every outbound call the gateway makes on its own (callbacks, their
 * token requests, acquirers): SNAPGATE_MODE, SNAPGATE_STAGING_ALLOW and SNAPGATE_CA_FILE.
 */
function outboundPolicyOf(config: Config): OutboundPolicy {
  const guard = createAddressGuard(config.mode === 'production', config.stagingAllow);
  return config.caFile ? { guard, ca: trustedCasWith(config.caFile, 'SNAPGATE_CA_FILE') } : { guard };
}

/** The operator services: one per concern, called alike by the admin API, the console and the portal. */
function createOperatorServices(deps: {
  config: Config;
  store: Store;
  clock: Clock;
  dispatcher: Dispatcher;
  inbound: InboundService;
  guard: AddressGuard;
  logger: Logger;
  payoutBank: PayoutBankClient;
}) {
  const { config, store, clock, dispatcher, guard, logger } = deps;
  const adminKeys = createAdminKeyService({ store, clock });
  return {
    merchants: createMerchantService({ store, clock, mode: config.mode, guard, payoutAccounts: deps.payoutBank }),
    providers: createProviderService({ store, clock, mode: config.mode, guard }),
    transactions: createTransactionReads({ store }),
    notifications: createNotificationOperations({ store, clock, dispatcher }),
    adminKeys,
    audit: createAuditLog({ store, clock }),
    sessions: createSessionService({ store, clock, adminKeys, publicUrl: () => config.publicUrl }),
    users: createMerchantUserService({
      store,
      clock,
      publicUrl: () => config.publicUrl,
      twoFactorRequired: config.merchantTwoFactor === 'required',
    }),
    overview: createOverviewService({ store }),
    ledger: createLedgerService({ store, clock }),
    settlements: createSettlementService({ store, clock, logger }),
    payouts: createPayoutService({
      store,
      clock,
      logger,
      bank: deps.payoutBank,
      statusScheduleMs: config.transferStatusScheduleMs,
      approvalAboveSen: config.payoutApprovalAboveSen,
      timeoutMs: config.upstreamTimeoutMs,
      onNotified: () => dispatcher.wake(),
    }),
    reconciliations: createReconciliationService({
      store,
      clock,
      // A payment a provider's report shows and snapgate missed goes through that provider's door.
      applyReportedPayment: createReportedPaymentApplier({ inbound: deps.inbound }),
    }),
  };
}

export type OperatorServices = ReturnType<typeof createOperatorServices>;

/** Where this process itself answers: the sandbox bank and acquirer call it there. */
function selfUrlOf(app: FastifyInstance): string {
  const address = app.server.address();
  if (typeof address !== 'object' || address === null) throw new TypeError('the gateway is not listening');
  const host = address.address === '0.0.0.0' ? '127.0.0.1' : address.address === '::' ? '::1' : address.address;
  return `http://${host.includes(':') ? `[${host}]` : host}:${address.port}`;
}

/**
 * Sealing, bootstrap (keys, first-run state) and build: what every way of running a gateway does
 * first. The store given is the database as it is; the gateway uses it through sealedStore, so
 * every secret is sealed at rest. Secrets a database holds in clear (written before sealing
 * existed), or sealed before seals named their place, are sealed anew here, once.
 */
export async function assembleGateway(
  deps: Omit<AppDeps, 'keys' | 'sealer'> & { sealer?: Sealer },
): Promise<{ gateway: Gateway; boot: BootstrapResult; masterKey: MasterKeyResult }> {
  const masterKey: MasterKeyResult = deps.sealer ? { sealer: deps.sealer } : loadMasterKey(deps.config);
  const { sealer } = masterKey;
  const upgraded = await upgradeStoredSecrets(deps.store, sealer);
  if (upgraded.unopened > 0) {
    deps.logger.warn(
      { unopened: upgraded.unopened },
      'stored secrets that do not open were left as they are; each is refused where it is used',
    );
  }
  const store = sealedStore(deps.store, sealer);
  const boot = await bootstrap(store, deps.config, deps.clock);
  return { gateway: buildApp({ ...deps, store, sealer, keys: boot }), boot, masterKey };
}

/**
 * Listens and returns the base URL actually bound (port 0 picks a free port). Without
 * SNAPGATE_PUBLIC_URL, the links the gateway writes (qrUrl, the console's) follow that address.
 */
export async function listenOn(gateway: Gateway, host: string, port: number): Promise<string> {
  await gateway.app.listen({ port, host });
  const address = gateway.app.server.address();
  const bound = typeof address === 'object' && address ? address.port : port;
  const scheme = isTls(gateway.app.server) ? 'https' : 'http';
  const url = `${scheme}://${host.includes(':') ? `[${host}]` : host}:${bound}`;
  if (!gateway.config.publicUrlSet) gateway.config.publicUrl = url;
  return url;
}

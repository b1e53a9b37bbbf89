import { realpathSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { assembleGateway, listenOn } from './app.ts';
import { warnOfRefusedAnnouncements } from './checkout/announce-failures.ts';
import { systemClock } from './clock.ts';
import { type Config, ConfigError, loadConfig } from './config.ts';
import { startMetricsServer } from './http/metrics-server.ts';
import { reloadTls } from './http/tls.ts';
import { createLogger, type Logger } from './logger.ts';
import { SealError } from './secrets/sealer.ts';
import { reasonOf, StartupError } from './startup-error.ts';
import { openStore } from './store/open-store.ts';

// Composition root: config → store → clock/logger → app → listen.
export async function serve(env: Record<string, string | undefined> = process.env): Promise<void> {
  let config: ReturnType<typeof loadConfig>;
  try {
    config = loadConfig(env);
  } catch (e) {
    if (e instanceof ConfigError) {
      process.stderr.write(`snapgate: ${e.message}\n`);
      process.exit(2);
    }
    throw e;
  }
  const logger = createLogger(config.logLevel);
  try {
    await start(config, logger);
  } catch (e) {
    // One line, no stack: what went wrong and what to do (the stack goes to the debug log).
    logger.debug({ err: e }, 'start-up failed');
    process.stderr.write(`snapgate: ${startupMessage(e, config)}\n`);
    process.exit(1);
  }
}

/** What a start-up failure means for the operator. */
function startupMessage(e: unknown, config: Config): string {
  if (e instanceof StartupError || e instanceof SealError) return e.message;
  const code = (e as { code?: string }).code;
  if (code === 'EADDRINUSE') {
    return `port ${(e as { port?: number }).port ?? config.port} on ${config.host} is already in use: stop what holds it, or set SNAPGATE_PORT (or SNAPGATE_METRICS_PORT) to a free port`;
  }
  if (code === 'EACCES' && (e as { syscall?: string }).syscall === 'listen') {
    return `no permission to listen on port ${(e as { port?: number }).port ?? config.port}: use a port above 1023 (SNAPGATE_PORT) or grant the capability`;
  }
  if (code === 'EADDRNOTAVAIL') return `${config.host} is not an address of this machine: set SNAPGATE_HOST`;
  if (config.tls && (code === 'ENOENT' || code === 'EACCES')) {
    return `cannot read the TLS certificate or key (${reasonOf(e)}): check SNAPGATE_TLS_CERT_FILE and SNAPGATE_TLS_KEY_FILE`;
  }
  return `start-up failed: ${reasonOf(e)} (SNAPGATE_LOG_LEVEL=debug shows where)`;
}

/** What an operator must not miss at start: a staging allowance, and production on plain HTTP. */
function warnAboutExposure(config: Config, logger: Logger): void {
  if (config.stagingAllow.text.length > 0) {
    logger.warn(
      { stagingAllow: config.stagingAllow.text, mode: config.mode },
      `STAGING REHEARSAL: outbound calls may reach ${config.stagingAllow.text.join(', ')} (SNAPGATE_STAGING_ALLOW); unset it before real payments`,
    );
  }
  if (config.mode === 'production' && !config.tls && config.trustProxy === false) {
    logger.warn(
      'production mode on plain HTTP without a trusted proxy: serve TLS (SNAPGATE_TLS_CERT_FILE and SNAPGATE_TLS_KEY_FILE) or put a TLS proxy in front and name it in SNAPGATE_TRUST_PROXY',
    );
  }
}

async function start(config: Config, logger: Logger): Promise<void> {
  const store = await openStore(config, { onAnnounceFailed: warnOfRefusedAnnouncements(logger, systemClock) });
  const { gateway, boot, masterKey } = await assembleGateway({ config, store, clock: systemClock, logger });
  if (masterKey.keyFile) {
    logger.warn(
      { keyFile: masterKey.keyFile, generated: masterKey.generated ?? false },
      'secrets are sealed with a master key kept in a file next to the database (sandbox mode): set SNAPGATE_MASTER_KEY for production',
    );
  }
  const url = await listenOn(gateway, config.host, config.port);
  const port = Number(new URL(url).port);
  await gateway.expiry.runOnce();
  gateway.expiry.start();
  gateway.retention.start();
  gateway.settlementScheduler.start();
  gateway.payoutChecker.start();
  gateway.dispatcher.start();
  const metricsServer =
    config.metricsPort === undefined
      ? undefined
      : await startMetricsServer(gateway.metrics.registry, config.metricsHost, config.metricsPort);
  logger.info(
    {
      port,
      host: config.host,
      mode: config.mode,
      store: store.kind,
      tls: config.tls !== undefined,
      metricsPort: config.metricsPort,
      ...(config.metricsPort === undefined ? {} : { metricsHost: config.metricsHost }),
    },
    'snapgate listening',
  );
  warnAboutExposure(config, logger);
  if (boot.bootstrapRevoked) {
    logger.warn(
      'SNAPGATE_ADMIN_TOKEN is set, but the bootstrap admin key was revoked: that token opens nothing. Use another admin key (snapgate admin-key create), and unset SNAPGATE_ADMIN_TOKEN',
    );
  }
  // A renewed certificate is taken on SIGHUP, without a restart.
  process.on('SIGHUP', () => {
    try {
      reloadTls(gateway.app.server, config);
      if (config.tls) logger.info('TLS certificate and key reloaded');
    } catch (e) {
      logger.error({ err: (e as Error).message }, 'TLS reload failed: the previous certificate stays');
    }
  });

  // Credentials made on this start are printed once to the console, never to the log.
  const lines = [`snapgate ${config.mode} gateway on ${url} (${store.kind} store)`];
  lines.push(`  console: ${url}/console (sign in with an admin key)`);
  if (boot.generatedAdminToken) lines.push(`  admin token (shown once): ${boot.generatedAdminToken}`);
  if (boot.sandboxMerchant) {
    const m = boot.sandboxMerchant;
    lines.push(
      '  sandbox merchant (shown once):',
      `    merchantId   ${m.id}`,
      `    clientKey    ${m.clientKey}`,
      `    clientSecret ${m.clientSecret}`,
      `    partnerId    ${m.partnerId}`,
    );
  }
  process.stdout.write(`${lines.join('\n')}\n`);

  let closing = false;
  const shutdown = async (signal: string) => {
    if (closing) return;
    closing = true;
    logger.info({ signal }, 'shutting down');
    // The background jobs end what they are doing (a sweep before its next transaction, a
    // settlement whole) before the store closes under them.
    const jobs = Promise.all([gateway.expiry.stop(), gateway.retention.stop(), gateway.settlementScheduler.stop()]);
    // Stop claiming, let attempts in flight finish within a bound, give the rest back.
    await gateway.dispatcher.stop(Math.min(config.callbackTimeoutMs, 10_000));
    await jobs;
    metricsServer?.close();
    await gateway.app.close();
    await store.close();
    process.exit(0);
  };
  process.on('SIGTERM', () => void shutdown('SIGTERM'));
  process.on('SIGINT', () => void shutdown('SIGINT'));
}

/** Whether this module is the script Node was asked to run (through a symlink too: paths compared resolved). */
function isEntryPoint(): boolean {
  const script = process.argv[1];
  if (!script) return false;
  try {
    return realpathSync(fileURLToPath(import.meta.url)) === realpathSync(script);
  } catch {
    return false;
  }
}

if (isEntryPoint()) {
  await serve();
}

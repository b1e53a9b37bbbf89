import { startMerchantServer } from './server.ts';

// Settings come from the environment: the credentials `npm start` prints for its sandbox merchant.
const env = process.env;
const missing = ['CLIENT_KEY', 'CLIENT_SECRET'].filter((k) => !env[k]);
if (missing.length > 0) {
  process.stderr.write(`merchant-server: set ${missing.join(' and ')} (see README.md)\n`);
  process.exit(2);
}
const clientKey = env.CLIENT_KEY as string;
// `--mode snap-b2b` (or CALLBACK_MODE=snap-b2b): SNAP's token-bound callbacks.
const modeFlag = process.argv.indexOf('--mode');
const callbackMode = (modeFlag >= 0 ? process.argv[modeFlag + 1] : env.CALLBACK_MODE) ?? 'hmac';
if (callbackMode !== 'hmac' && callbackMode !== 'snap-b2b') {
  process.stderr.write('merchant-server: --mode is hmac or snap-b2b\n');
  process.exit(2);
}
const merchant = await startMerchantServer({
  port: Number(env.PORT ?? 3000),
  gatewayUrl: env.GATEWAY_URL ?? 'http://127.0.0.1:8080',
  clientKey,
  clientSecret: env.CLIENT_SECRET as string,
  partnerId: env.PARTNER_ID ?? clientKey,
  dbFile: env.DB_FILE ?? './data/merchant.db',
  callbackMode,
  onCallback: ({ path, result, order }) => {
    const status = result.notification?.latestTransactionStatus ?? '-';
    const orderPart = order ? ` order ${order.id} ${order.status}` : '';
    process.stdout.write(
      `callback ${path} X-EXTERNAL-ID ${result.externalId ?? '-'} status ${status}: ${result.outcome}, ` +
        `answered ${result.httpStatus} ${result.body.responseCode}${orderPart}\n`,
    );
  },
});
process.stdout.write(`example merchant on ${merchant.url} (callbacks at ${merchant.url}/webhook/...)\n`);
const stop = () => void merchant.close().then(() => process.exit(0));
process.on('SIGINT', stop);
process.on('SIGTERM', stop);

import { randomBytes } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { CallbackEvent, MerchantServer } from '@snapgate/example-merchant-server';
import { assembleGateway, type Gateway, listenOn } from '../app.ts';
import type { BootstrapResult } from '../bootstrap.ts';
import { systemClock } from '../clock.ts';
import { loadConfig } from '../config.ts';
import { createLogger } from '../logger.ts';
import { SqliteStore } from '../store/sqlite/sqlite-store.ts';

export interface DemoIo {
  out: (s: string) => void;
  err: (s: string) => void;
}

const DEMO_AMOUNT = '25000.00';
const DEADLINE_MS = 20_000;

/** Polls until `check` returns a value, or throws after the deadline (no fixed sleeps). */
async function waitFor<T>(what: string, check: () => T | undefined | Promise<T | undefined>, deadline: number) {
  for (;;) {
    const v = await check();
    if (v !== undefined) return v;
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 25));
  }
}

const short = (s: string, n = 24) => (s.length > n ? `${s.slice(0, n)}…` : s);

/**
 * The example merchant is a development dependency: it lives in the repository, next to the
 * gateway, and is installed by `npm install` at the root. A gateway installed without it says so.
 */
async function loadExampleMerchant(): Promise<typeof import('@snapgate/example-merchant-server')> {
  try {
    return await import('@snapgate/example-merchant-server');
  } catch (err) {
    throw new Error(
      `snapgate demo needs the example merchant (examples/merchant-server), installed by \`npm install\` in a checkout of the repository: ${(err as Error).message}`,
    );
  }
}

/**
 * `snapgate demo`: a sandbox gateway on a temporary database and the example merchant, both on
 * 127.0.0.1, then one QRIS order paid end to end, shown as numbered steps. 0 when the order is
 * PAID, 1 otherwise. Everything it starts is stopped and its temporary files removed.
 */
export async function runDemo(io: DemoIo): Promise<number> {
  const dir = mkdtempSync(join(tmpdir(), 'snapgate-demo-'));
  const adminToken = `sgdemo_${randomBytes(18).toString('base64url')}`;
  let gateway: Gateway | undefined;
  let store: SqliteStore | undefined;
  let merchant: MerchantServer | undefined;
  const callbacks: CallbackEvent[] = [];
  let step = 0;
  const say = (line: string, ...details: string[]) => {
    io.out(`${++step}. ${line}`);
    for (const d of details) io.out(`   ${d}`);
  };

  try {
    io.out('snapgate demo: a sandbox gateway and the example merchant, end to end on 127.0.0.1\n');
    const config = loadConfig({
      SNAPGATE_DB: join(dir, 'snapgate.db'),
      SNAPGATE_HOST: '127.0.0.1',
      SNAPGATE_PORT: '0',
      SNAPGATE_MODE: 'sandbox',
      SNAPGATE_ADMIN_TOKEN: adminToken,
      SNAPGATE_LOG_LEVEL: 'silent',
    });
    store = new SqliteStore({ file: config.sqlitePath, writer: config.sqliteWriter });
    let boot: BootstrapResult;
    ({ gateway, boot } = await assembleGateway({
      config,
      store,
      clock: systemClock,
      logger: createLogger(config.logLevel),
    }));
    const gatewayUrl = await listenOn(gateway, '127.0.0.1', 0);
    gateway.dispatcher.start();
    const m = boot.sandboxMerchant;
    if (!m) throw new Error('the gateway did not create its sandbox merchant');
    say(
      `Started a sandbox gateway on ${gatewayUrl} (temporary SQLite database, callback dispatcher running)`,
      `it onboarded a sandbox merchant, as \`npm start\` does: clientKey ${m.clientKey}, partnerId ${m.partnerId}`,
    );

    const admin = async (method: string, path: string, body?: unknown) => {
      const res = await fetch(`${gatewayUrl}/admin/v1${path}`, {
        method,
        headers: {
          authorization: `Bearer ${adminToken}`,
          ...(body === undefined ? {} : { 'content-type': 'application/json' }),
        },
        body: body === undefined ? undefined : JSON.stringify(body),
      });
      const text = await res.text();
      if (!res.ok) throw new Error(`${method} /admin/v1${path}: HTTP ${res.status} ${text}`);
      return JSON.parse(text) as Record<string, unknown>;
    };

    const { startMerchantServer } = await loadExampleMerchant();
    merchant = await startMerchantServer({
      port: 0,
      gatewayUrl,
      clientKey: m.clientKey,
      clientSecret: m.clientSecret,
      partnerId: m.partnerId,
      dbFile: join(dir, 'merchant.db'),
      onCallback: (e) => callbacks.push(e),
    });
    say(
      `Started the example merchant (examples/merchant-server) on ${merchant.url}`,
      'orders in SQLite; callbacks at /webhook/payment-qr-notification and /webhook/payment-va-notification',
    );

    await admin('PATCH', `/merchants/${encodeURIComponent(m.id)}`, { callbackBaseUrl: merchant.url });
    say(
      `Pointed the merchant's callbacks at it: PATCH /admin/v1/merchants/${m.id} {"callbackBaseUrl":"${merchant.url}"}`,
    );

    const accessToken = await merchant.tokenClient.getToken();
    say(
      'Took a B2B access token: POST /api/snap/v1.0/access-token/b2b, X-SIGNATURE = HMAC-SHA256(clientSecret, clientKey|X-TIMESTAMP)',
      `Bearer ${short(accessToken)} (valid ${config.tokenTtlSec} s; the SDK reuses it for the calls below)`,
    );

    const created = await fetch(`${merchant.url}/orders`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ amount: DEMO_AMOUNT, method: 'qris' }),
    });
    const order = (await created.json()) as { id: string; referenceNo: string | null; qrContent: string | null };
    if (created.status !== 201 || !order.referenceNo)
      throw new Error(`order creation failed: ${JSON.stringify(order)}`);
    say(
      `Created order ${order.id} for IDR ${DEMO_AMOUNT}: the merchant asked the gateway for a QRIS (POST /api/snap/v1.0/qr/qr-mpm-generate, HMAC-SHA512 signed)`,
      `referenceNo ${order.referenceNo}`,
      `qrContent ${order.qrContent}`,
    );

    const paid = await admin('POST', `/sandbox/qris/${encodeURIComponent(order.referenceNo)}/pay`, {
      status: '00',
      payerName: 'DEMO PAYER',
    });
    const providers = (await admin('GET', '/providers')).items as Array<{
      id: string;
      kind: string;
      isSandbox: boolean;
    }>;
    const acquirer = providers.find((p) => p.isSandbox && p.kind === 'acquirer');
    const notify = await waitFor(
      'the acquirer’s call in the inbound log',
      async () => {
        const log = (await admin('GET', `/providers/${acquirer?.id}/inbound?limit=1`)).items as Array<{
          path: string;
          responseCode: string;
          durationMs: number;
        }>;
        return log[0];
      },
      Date.now() + DEADLINE_MS,
    );
    say(
      `Paid the QRIS in the sandbox: POST /admin/v1/sandbox/qris/${order.referenceNo}/pay`,
      `the sandbox acquirer told the gateway, as a real acquirer does: POST ${notify.path} with its own B2B token, HMAC-SHA512 signed`,
      `the gateway answered ${notify.responseCode} after committing status ${String(paid.status)} (${String(paid.statusDesc)}) together with a signed notification for the merchant`,
    );

    const deadline = Date.now() + DEADLINE_MS;
    const arrived = await waitFor(
      'the callback',
      () => callbacks.find((c) => c.result.notification?.originalReferenceNo === order.referenceNo),
      deadline,
    );
    const r = arrived.result;
    say(
      `Callback arrived at the merchant: POST ${arrived.path}`,
      `X-EXTERNAL-ID ${r.externalId ?? '-'}, latestTransactionStatus ${r.notification?.latestTransactionStatus ?? '-'}`,
      r.outcome === 'rejected'
        ? `verification FAILED: ${r.body.responseCode} ${r.body.responseMessage}`
        : 'verified: HMAC-SHA512 over the raw body, X-TIMESTAMP within 300 s, X-PARTNER-ID matches',
      `onStatus → ${r.action ?? r.outcome}; answered HTTP ${r.httpStatus} ${JSON.stringify(r.body)}`,
    );

    const notification = await waitFor(
      'the gateway to record the acknowledgement',
      async () => {
        const list = (await admin('GET', `/notifications?referenceNo=${encodeURIComponent(order.referenceNo ?? '')}`))
          .items as Array<{ id: string; state: string; attemptCount: number }>;
        return list.find((n) => n.state === 'delivered');
      },
      deadline,
    );
    say(
      `The gateway recorded notification ${notification.id} as ${notification.state} (${notification.attemptCount} attempt${notification.attemptCount === 1 ? '' : 's'})`,
    );

    const final = await waitFor(
      'the order to be PAID',
      () => {
        const o = merchant?.orders.find(order.id);
        return o && o.status !== 'PENDING' ? o : undefined;
      },
      deadline,
    );
    if (final.status !== 'PAID') {
      io.err(`snapgate demo: order ${final.id} ended ${final.status}, not PAID`);
      return 1;
    }
    say(`Order ${final.id} is PAID.`);
    io.out(
      '\nDone: token, QRIS, payment notified by the acquirer over SNAP, signed callback, verified and acknowledged.',
    );
    return 0;
  } catch (e) {
    io.err(`snapgate demo: ${(e as Error).message}`);
    return 1;
  } finally {
    await merchant?.close().catch(() => undefined);
    await gateway?.app.close().catch(() => undefined);
    await store?.close().catch(() => undefined);
    rmSync(dir, { recursive: true, force: true });
  }
}

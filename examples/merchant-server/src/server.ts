import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import {
  type CallbackResult,
  createCallbackHandler,
  createSnapB2bTokenIssuer,
  createSnapClient,
  createTokenClient,
  isSnapError,
  readRawBody,
  type SnapClient,
  SnapNetworkError,
  TOKEN_PATH,
  type TokenClient,
} from '@snapgate/merchant-sdk';
import { type Order, type OrderBook, openOrderBook, type PaymentMethod } from './orders.ts';

export type { Order, OrderStatus } from './orders.ts';

export interface MerchantServerOptions {
  /** 0 picks a free port. */
  port: number;
  host?: string;
  /** The gateway's base address, e.g. http://127.0.0.1:8080. */
  gatewayUrl: string;
  clientKey: string;
  clientSecret: string;
  /** X-PARTNER-ID (snapgate's default is the client key). */
  partnerId: string;
  /** The SQLite file for orders (":memory:" for none). */
  dbFile: string;
  /**
   * `snap-b2b`: the gateway takes a token at /api/snap/v1.0/access-token/b2b here first (verified
   * with the gateway's key from /.well-known), and every callback must carry it. Default `hmac`.
   */
  callbackMode?: 'hmac' | 'snap-b2b';
  /** Told about each callback as it is answered (the demo prints these). */
  onCallback?: (event: CallbackEvent) => void;
  /** Where the server says what went wrong. Default: one line on stderr. */
  log?: (line: string) => void;
}

/** One callback, as the merchant answered it. */
export interface CallbackEvent {
  path: string;
  result: CallbackResult;
  order: Order | undefined;
}

export interface MerchantServer {
  url: string;
  orders: OrderBook;
  tokenClient: TokenClient;
  snap: SnapClient;
  close(): Promise<void>;
}

const MONEY = /^(0|[1-9]\d{0,15})\.\d{2}$/;
const QRIS_PATH = '/webhook/payment-qr-notification';
const VA_PATH = '/webhook/payment-va-notification';

/** The key the gateway signs its token requests with, as it publishes it. */
async function gatewayKey(gatewayUrl: string): Promise<string> {
  const res = await fetch(`${gatewayUrl.replace(/\/+$/, '')}/.well-known/snapgate/callback-public-key.pem`);
  if (!res.ok) throw new Error(`cannot fetch the gateway's callback public key: HTTP ${res.status}`);
  return res.text();
}

function send(res: ServerResponse, status: number, body: unknown) {
  res.writeHead(status, { 'content-type': 'application/json' }).end(JSON.stringify(body));
}

/**
 * The example merchant: `POST /orders` creates an order and asks the gateway for a QRIS (or a
 * VA), `GET /orders/:id` shows it, and the two callback paths mark it PAID / FAILED.
 */
export async function startMerchantServer(options: MerchantServerOptions): Promise<MerchantServer> {
  const log = options.log ?? ((line: string) => process.stderr.write(`merchant-server: ${line}\n`));
  const orders = openOrderBook(options.dbFile);
  const tokenClient = createTokenClient({
    baseUrl: options.gatewayUrl,
    clientKey: options.clientKey,
    clientSecret: options.clientSecret,
  });
  const snap = createSnapClient({
    baseUrl: options.gatewayUrl,
    partnerId: options.partnerId,
    clientSecret: options.clientSecret,
    tokenClient,
  });

  const issuer =
    options.callbackMode === 'snap-b2b'
      ? createSnapB2bTokenIssuer({
          clientKey: options.clientKey,
          gatewayPublicKeyPem: await gatewayKey(options.gatewayUrl),
        })
      : undefined;
  const callbacks = createCallbackHandler({
    clientSecret: options.clientSecret,
    snapB2b: issuer,
    partnerId: options.partnerId,
    dedupeStore: orders.dedupeStore,
    statusStore: orders.statusStore,
    onStatus: ({ action, notification }) => {
      // We sent our order id as partnerReferenceNo (QRIS) and trxId (VA).
      const order = orders.find(notification.originalPartnerReferenceNo);
      // Throwing answers 500: the gateway retries, and an operator sees it in its reports.
      if (!order) throw new Error(`unknown order ${notification.originalPartnerReferenceNo}`);
      if (action === 'PAID' && notification.amount.value !== order.amount.value) {
        throw new Error(`order ${order.id} paid ${notification.amount.value}, expected ${order.amount.value}`);
      }
      orders.apply(order.id, action);
    },
    onOutcome: (result, request) => {
      const ref = result.notification?.originalPartnerReferenceNo;
      options.onCallback?.({ path: request.path, result, order: ref ? orders.find(ref) : undefined });
    },
  });

  async function createOrder(req: IncomingMessage, res: ServerResponse) {
    const raw = await readRawBody(req, 16 * 1024);
    let input: { amount?: unknown; method?: unknown; customerName?: unknown };
    try {
      input = JSON.parse(String(raw ?? ''));
    } catch {
      return send(res, 400, { error: 'body must be JSON: {"amount":"10000.00","method":"qris"|"va"}' });
    }
    const method = (input.method ?? 'qris') as PaymentMethod;
    if (typeof input.amount !== 'string' || !MONEY.test(input.amount) || !['qris', 'va'].includes(method)) {
      return send(res, 400, { error: 'amount must be like "10000.00" and method "qris" or "va"' });
    }
    const order = orders.create(method, input.amount);
    const amount = { value: input.amount, currency: 'IDR' };
    try {
      if (method === 'qris') {
        const qr = await snap.generateQris({ partnerReferenceNo: order.id, amount });
        return send(res, 201, orders.attachPayment(order.id, { referenceNo: qr.referenceNo, qrContent: qr.qrContent }));
      }
      const va = await snap.createVa({
        virtualAccountName: typeof input.customerName === 'string' ? input.customerName : 'Customer',
        trxId: order.id,
        totalAmount: amount,
      });
      return send(
        res,
        201,
        orders.attachPayment(order.id, { virtualAccountNo: va.virtualAccountData.virtualAccountNo }),
      );
    } catch (e) {
      orders.fail(order.id);
      if (e instanceof SnapNetworkError) {
        log(
          `order ${order.id}: the gateway did not answer (${e.timedOut ? 'timeout' : (e.code ?? 'no answer')}) at ${e.url}`,
        );
        return send(res, 502, {
          responseCode: '5020000',
          responseMessage: 'Bad Gateway. The payment gateway did not answer',
          orderId: order.id,
        });
      }
      if (isSnapError(e)) {
        log(`order ${order.id}: the gateway refused the payment: ${e.responseCode} ${e.responseMessage}`);
        return send(res, 502, { ...e.toBody(), orderId: order.id });
      }
      throw e;
    }
  }

  const server = createServer((req, res) => {
    const path = (req.url ?? '').split('?')[0] ?? '';
    if (req.method === 'POST' && (path === QRIS_PATH || path === VA_PATH)) return callbacks(req, res);
    if (issuer && req.method === 'POST' && path === TOKEN_PATH) return issuer(req, res);
    const route = async () => {
      if (req.method === 'POST' && path === '/orders') return createOrder(req, res);
      const id = /^\/orders\/([\w-]+)$/.exec(path)?.[1];
      if (req.method === 'GET' && id) {
        const order = orders.find(id);
        return order ? send(res, 200, order) : send(res, 404, { error: 'no such order' });
      }
      return send(res, 404, { error: 'not found' });
    };
    route().catch((e: unknown) => {
      log(`${req.method} ${path} failed: ${(e as Error).message}`);
      if (!res.headersSent) send(res, 500, { responseCode: '5000000', responseMessage: 'General Error' });
    });
  });
  const host = options.host ?? '127.0.0.1';
  await new Promise<void>((resolve) => server.listen(options.port, host, resolve));
  const { port } = server.address() as AddressInfo;

  return {
    url: `http://${host}:${port}`,
    orders,
    tokenClient,
    snap,
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => {
          orders.close();
          resolve();
        });
      }),
  };
}

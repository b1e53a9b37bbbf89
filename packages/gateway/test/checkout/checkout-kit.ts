// What the checkout tests share: orders made through the SNAP API as a merchant makes them, a
// browser with as many contexts as a test needs (Debian's Chromium at 390×844), the shop's own page
// a payer goes back to, and the event stream read over real HTTP.
import { formatJakartaTimestamp } from '@snapgate/snap';
import { launchChromium } from '../helpers/chromium.ts';
import { docsScreenshotPath } from '../helpers/docs-screenshots.ts';
import type { TestGateway } from '../helpers/gateway.ts';
import { startReceiver } from '../helpers/receiver.ts';
import { authenticate, type SnapCaller, snapCall } from '../helpers/snap.ts';

export const QR = '/api/snap/v1.0/qr';
export const VA = '/api/snap/v1.0/transfer-va';
export const PHONE = { width: 390, height: 844 };

/** A checkout screenshot for docs/checkout.md (see docsScreenshotPath). */
export const screenshotPath = (name: string) => docsScreenshotPath('checkout', name);

let n = 0;
const ref = (prefix: string) => `${prefix}-${Date.now()}-${++n}`;

/** A merchant with a name for payers, and a SNAP caller of it. */
export async function shop(gw: TestGateway, input: Record<string, unknown> = {}) {
  const merchant = await gw.createMerchant({ name: 'Kopi Senja Operator Name', merchantName: 'KOPI SENJA', ...input });
  return { merchant, caller: await authenticate(gw.url, merchant) };
}

export interface Order {
  referenceNo: string;
  checkoutUrl: string;
  checkoutId: string;
  partnerReferenceNo: string;
  virtualAccountNo?: string;
  body: Record<string, any>;
}

const idOf = (url: string) => url.slice(url.lastIndexOf('/') + 1);

/** A QRIS through qr-mpm-generate; `validitySec` from now (whole seconds). */
export async function qrisOrder(
  gw: TestGateway,
  c: SnapCaller,
  o: { amount?: string; returnUrl?: string; validitySec?: number; extra?: Record<string, unknown> } = {},
): Promise<Order> {
  const partnerReferenceNo = ref('ORDER');
  const r = await snapCall(gw.url, c, `${QR}/qr-mpm-generate`, {
    partnerReferenceNo,
    amount: { value: o.amount ?? '15000.00', currency: 'IDR' },
    ...(o.validitySec === undefined
      ? {}
      : { validityPeriod: formatJakartaTimestamp(Math.ceil(Date.now() / 1000) * 1000 + o.validitySec * 1000) }),
    ...(o.returnUrl === undefined ? {} : { additionalInfo: { returnUrl: o.returnUrl } }),
    ...o.extra,
  });
  if (r.status !== 200) throw new Error(`generate: ${r.status} ${r.text}`);
  const checkoutUrl = r.body.additionalInfo.checkoutUrl as string;
  return {
    referenceNo: r.body.referenceNo,
    checkoutUrl,
    checkoutId: idOf(checkoutUrl),
    partnerReferenceNo,
    body: r.body,
  };
}

/** A VA through create-va: closed amount unless `open`; `expirySec` from now. */
export async function vaOrder(
  gw: TestGateway,
  c: SnapCaller,
  o: { amount?: string; open?: boolean; returnUrl?: string; expirySec?: number } = {},
): Promise<Order> {
  const trxId = ref('BILL');
  const r = await snapCall(gw.url, c, `${VA}/create-va`, {
    virtualAccountName: 'BUDI SANTOSO',
    trxId,
    ...(o.open ? { virtualAccountTrxType: 'O' } : { totalAmount: { value: o.amount ?? '75000.00', currency: 'IDR' } }),
    ...(o.expirySec === undefined
      ? {}
      : { expiredDate: formatJakartaTimestamp(Math.ceil(Date.now() / 1000) * 1000 + o.expirySec * 1000) }),
    ...(o.returnUrl === undefined ? {} : { additionalInfo: { returnUrl: o.returnUrl } }),
  });
  if (r.status !== 200) throw new Error(`create-va: ${r.status} ${r.text}`);
  const data = r.body.virtualAccountData;
  const checkoutUrl = data.additionalInfo.checkoutUrl as string;
  const referenceNo = (await gw.store.findTransactionByCheckoutId(idOf(checkoutUrl)))?.referenceNo as string;
  return {
    referenceNo,
    checkoutUrl,
    checkoutId: idOf(checkoutUrl),
    partnerReferenceNo: trxId,
    virtualAccountNo: data.virtualAccountNo,
    body: r.body,
  };
}

/** Pays through the admin sandbox route (the sandbox acquirer or bank, over the provider API). */
export async function payBySandbox(gw: TestGateway, order: Order, status = '00'): Promise<void> {
  const r = order.virtualAccountNo
    ? await gw.admin('POST', `/sandbox/va/${encodeURIComponent(order.virtualAccountNo)}/pay`, {})
    : await gw.admin('POST', `/sandbox/qris/${order.referenceNo}/pay`, { status });
  if (r.status !== 200) throw new Error(`sandbox pay: ${r.status} ${JSON.stringify(r.body)}`);
}

/** The shop a payer goes back to: a real page on 127.0.0.1 that says so. */
export async function startShop() {
  return startReceiver((_req, res) => {
    res
      .writeHead(200, { 'content-type': 'text/html; charset=utf-8' })
      .end('<!doctype html><html lang="en"><title>Shop</title><h1>Back at the shop</h1></html>');
  });
}

/** Chromium for payers: each context phone-sized and Indonesian unless told (`newContext`). */
export const launchBrowser = () => launchChromium({ viewport: PHONE, locale: 'id-ID' });

/** An event stream read over real HTTP: its events as they come, and whether it ended. */
export async function openEvents(url: string, init: RequestInit = {}) {
  const res = await fetch(url, { ...init, headers: { accept: 'text/event-stream', ...init.headers } });
  const events: Array<Record<string, any>> = [];
  const comments: string[] = [];
  let ended = false;
  let buffer = '';
  const reading = (async () => {
    if (!res.body) return;
    const decoder = new TextDecoder();
    try {
      for await (const chunk of res.body) {
        buffer += decoder.decode(chunk as Uint8Array, { stream: true });
        for (let at = buffer.indexOf('\n\n'); at !== -1; at = buffer.indexOf('\n\n')) {
          const block = buffer.slice(0, at);
          buffer = buffer.slice(at + 2);
          const data = /^data: (.*)$/m.exec(block)?.[1];
          if (/^event: status$/m.test(block) && data !== undefined) events.push(JSON.parse(data));
          for (const line of block.split('\n')) if (line.startsWith(':')) comments.push(line);
        }
      }
    } catch {
      // Aborted by the test.
    }
    ended = true;
  })();
  return {
    res,
    events,
    comments,
    get ended() {
      return ended;
    },
    done: reading,
  };
}

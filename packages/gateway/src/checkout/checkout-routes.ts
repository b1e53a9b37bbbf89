import { randomInt } from 'node:crypto';
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import type { Clock } from '../clock.ts';
import type { Mode } from '../config.ts';
import { rawBodyOf } from '../http/raw-body.ts';
import type { Logger } from '../logger.ts';
import { assertNever } from '../methods/index.ts';
import type { BindingService } from '../payments/binding-service.ts';
import type { CheckoutReads } from '../payments/checkout-reads.ts';
import type { PaymentLinkService } from '../payments/payment-links.ts';
import type { QrImages } from '../payments/qr-image.ts';
import type { SandboxPayer } from '../providers/sandbox-providers.ts';
import { isRefusal } from '../providers/sandbox-rules.ts';
import type { TransactionRecord } from '../records/records.ts';
import { addressKey, createRateLimiter, type RateLimiter } from '../tokens/rate-limit.ts';
import { CHECKOUT_CSS, CHECKOUT_JS, CSS_VERSION, JS_VERSION } from './checkout-assets.ts';
import { createEventStreams, type EventStreams } from './checkout-events.ts';
import { bindingPage, boundPage, checkoutPage, messagePage, walletPage } from './checkout-page.ts';
import { checkoutView } from './checkout-state.ts';
import { type Lang, langOf, TEXT } from './checkout-text.ts';
import { closedLinkText, type LinkProblem, linkPage } from './link-page.ts';
import type { CheckoutLive } from './live.ts';

// The hosted checkout (docs/checkout.md): `GET /pay/<id>` (the page), `GET /pay/<id>/events` (its
// live status) and, in sandbox mode, `POST /pay/<id>/sandbox-pay`; its QR image,
// `GET /pay/<id>/qr.png`, is served by http/routes/qr-image.ts. Public pages: no session, no cookie
// but the language; every answer under a strict CSP, nothing from elsewhere, and each client address
// held to a number of requests a minute.

/** Requests a minute per client address (an IPv4 address, an IPv6 /64). */
export interface CheckoutLimits {
  pagePerMin: number;
  eventsPerMin: number;
  sandboxPayPerMin: number;
  /** Payments made through payment links' pages (each choice makes one). */
  linkPayPerMin: number;
}

/**
 * Generous: a page without script reloads every 5 s (12 a minute), an EventSource reconnects after
 * a dropped connection, and a carrier's NAT puts many payers behind one address. The ids cannot be
 * guessed (128 random bits): the limits only keep one address from flooding the gateway.
 */
export const DEFAULT_CHECKOUT_LIMITS: CheckoutLimits = {
  pagePerMin: 300,
  eventsPerMin: 300,
  sandboxPayPerMin: 30,
  linkPayPerMin: 30,
};

export interface CheckoutDeps {
  /** What the pages read (payments/checkout-reads.ts). */
  reads: CheckoutReads;
  live: CheckoutLive;
  clock: Clock;
  logger: Logger;
  mode: Mode;
  /** The gateway's public address (a sandbox form may be posted from it). */
  publicUrl: () => string;
  /** Sandbox mode only: pays as the sandbox bank or acquirer. */
  payer?: SandboxPayer | undefined;
  /**
   * Account bindings' pages: where a connected wallet sends the customer back, and (sandbox mode,
   * with `payer`) the sandbox wallet's consent pages.
   */
  bindings?: BindingService | undefined;
  limits?: Partial<CheckoutLimits> | undefined;
  /** The rendered QR images, shared with `GET /pay/<id>/qr.png`. */
  qrImages: QrImages;
  /** Payment links' pages, `/l/<id>` (docs/payment-links.md). */
  links?: PaymentLinkService | undefined;
}

const LANG_COOKIE = 'snapgate_lang';
const STATIC_CACHE = 'public, max-age=300';
const VERSIONED_CACHE = 'public, max-age=31536000, immutable';

/** The CSP of a checkout answer: nothing from elsewhere; framed only by the merchant's own origins. */
export function contentSecurityPolicy(frameAncestors: readonly string[] = []): string {
  const ancestors = frameAncestors.length > 0 ? frameAncestors.join(' ') : "'none'";
  return `default-src 'none'; script-src 'self'; style-src 'self'; img-src 'self' data:; connect-src 'self'; form-action 'self'; base-uri 'none'; frame-ancestors ${ancestors}`;
}

const cookieLang = (request: FastifyRequest) =>
  new RegExp(`(?:^|;\\s*)${LANG_COOKIE}=(id|en)(?:;|$)`).exec(request.headers.cookie ?? '')?.[1];

function langFor(request: FastifyRequest): Lang {
  const query = (request.query as Record<string, unknown> | undefined)?.lang;
  const accept = request.headers['accept-language'];
  return langOf(typeof query === 'string' ? query : undefined, cookieLang(request), accept);
}

/** `?lang=` chosen by the toggle: remembered for the checkout pages of this browser. */
function rememberLang(request: FastifyRequest, reply: FastifyReply): void {
  const query = (request.query as Record<string, unknown> | undefined)?.lang;
  if (query !== 'id' && query !== 'en') return;
  const secure = request.protocol === 'https' ? '; Secure' : '';
  reply.header('set-cookie', `${LANG_COOKIE}=${query}; Path=/pay; Max-Age=31536000; SameSite=Lax; HttpOnly${secure}`);
}

function sendPage(reply: FastifyReply, status: number, body: string, frameAncestors: readonly string[] = []) {
  reply.header('content-security-policy', contentSecurityPolicy(frameAncestors));
  if (frameAncestors.length === 0) reply.header('x-frame-options', 'DENY');
  return reply.code(status).type('text/html; charset=utf-8').send(body);
}

function sendMessage(request: FastifyRequest, reply: FastifyReply, status: number, title: string, text: string) {
  const path = request.url.split('?')[0] ?? '/pay';
  return sendPage(reply, status, messagePage(langFor(request), path, title, text));
}

/**
 * Posted from a page of this gateway. A browser says so in Sec-Fetch-Site; one that does not send
 * it names the page's origin in Origin, which must be the host the request came to or the public
 * URL. (Under `referrer-policy: no-referrer` a form's Origin is `null`: Sec-Fetch-Site decides.) A
 * client that sends neither is no browser a third-party page could drive.
 */
function isSameOrigin(request: FastifyRequest, publicUrl: string): boolean {
  const site = request.headers['sec-fetch-site'];
  if (typeof site === 'string') return site === 'same-origin';
  const origin = request.headers.origin;
  if (typeof origin !== 'string') return true;
  if (origin === `${request.protocol}://${request.host}`) return true;
  try {
    return origin === new URL(publicUrl).origin;
  } catch {
    return false;
  }
}

/** A sandbox form's amount (`15000`, `15000.00`, `15.000,50`?): whole rupiah or two decimals. */
function sandboxAmount(text: string | undefined): string | undefined {
  const m = /^\s*(\d{1,16})(?:[.,](\d{2}))?\s*$/.exec(text ?? '');
  if (!m) return undefined;
  const whole = String(BigInt(m[1] as string));
  return `${whole}.${m[2] ?? '00'}`;
}

export function checkoutRoutes(app: FastifyInstance, deps: CheckoutDeps): EventStreams {
  const limits = { ...DEFAULT_CHECKOUT_LIMITS, ...deps.limits };
  const limiters: Record<keyof CheckoutLimits, RateLimiter> = {
    pagePerMin: createRateLimiter(limits.pagePerMin),
    eventsPerMin: createRateLimiter(limits.eventsPerMin),
    sandboxPayPerMin: createRateLimiter(limits.sandboxPayPerMin),
    linkPayPerMin: createRateLimiter(limits.linkPayPerMin),
  };
  const streams = createEventStreams({
    live: deps.live,
    clock: deps.clock,
    headers: { 'x-content-type-options': 'nosniff', 'content-security-policy': contentSecurityPolicy() },
  });
  app.addHook('preClose', (done) => {
    streams.closeAll();
    done();
  });

  const qrSvgOf = (txn: TransactionRecord): Promise<string> | undefined =>
    txn.kind !== 'qris' || txn.details.qrContent === '' || !txn.checkoutId
      ? undefined
      : deps.qrImages.svg(txn.checkoutId, txn.details.qrContent);

  /** False (and a 429 page sent) when this client address is over the limit this minute. */
  const admitted = (request: FastifyRequest, reply: FastifyReply, limit: keyof CheckoutLimits): boolean => {
    const now = deps.clock.now();
    if (limiters[limit].take(addressKey(request.ip), now)) return true;
    const retryAfterSec = Math.ceil((60_000 - (now % 60_000)) / 1000);
    const t = TEXT[langFor(request)];
    reply.header('retry-after', String(retryAfterSec));
    void sendMessage(request, reply, 429, t.tooManyTitle, t.tooMany(retryAfterSec));
    return false;
  };

  app.register(
    async (pay) => {
      pageScope(pay, deps);

      const asset =
        (type: string, body: string, version: string) => async (request: FastifyRequest, reply: FastifyReply) => {
          const v = (request.query as Record<string, unknown> | undefined)?.v;
          return reply
            .header('cache-control', v === version ? VERSIONED_CACHE : STATIC_CACHE)
            .header('etag', `"${version}"`)
            .type(type)
            .send(body);
        };
      pay.get('/assets/checkout.css', asset('text/css; charset=utf-8', CHECKOUT_CSS, CSS_VERSION));
      pay.get('/assets/checkout.js', asset('text/javascript; charset=utf-8', CHECKOUT_JS, JS_VERSION));

      pay.get<{ Params: { id: string }; Querystring: { sandbox?: string } }>('/:id', async (request, reply) => {
        if (!admitted(request, reply, 'pagePerMin')) return reply;
        const txn = await deps.reads.byCheckoutId(request.params.id);
        const lang = langFor(request);
        rememberLang(request, reply);
        reply.header('vary', 'accept-language, cookie');
        if (!txn) return sendMessage(request, reply, 404, TEXT[lang].notFoundTitle, TEXT[lang].notFound);
        const now = deps.clock.now();
        const view = await checkoutView({ reads: deps.reads, isSandbox: deps.payer !== undefined }, txn, now);
        const qrSvg = await qrSvgOf(txn);
        const page = checkoutPage({
          view,
          lang,
          nowMs: now,
          ...(qrSvg === undefined ? {} : { qrSvg }),
          sandboxRefused: request.query.sandbox === 'refused',
        });
        return sendPage(reply, 200, page, view.frameAncestors);
      });

      pay.get<{ Params: { id: string } }>('/:id/events', async (request, reply) => {
        if (!admitted(request, reply, 'eventsPerMin')) return reply;
        const txn = await deps.reads.byCheckoutId(request.params.id);
        if (!txn) {
          const t = TEXT[langFor(request)];
          return sendMessage(request, reply, 404, t.notFoundTitle, t.notFound);
        }
        if (request.method === 'HEAD') {
          return reply.header('cache-control', 'no-store').type('text/event-stream; charset=utf-8').send();
        }
        reply.hijack();
        await streams
          .serve(reply.raw, txn.referenceNo, () => deps.reads.byReference(txn.referenceNo))
          .catch((err) => {
            deps.logger.error({ reqId: request.id, err }, 'checkout event stream failed');
            reply.raw.destroy();
          });
      });

      if (deps.payer) sandboxPayRoute(pay, deps, deps.payer, admitted);
      if (deps.payer) sandboxWalletRoutes(pay, deps, deps.payer, admitted);
    },
    { prefix: '/pay' },
  );
  const bindings = deps.bindings;
  if (bindings) {
    app.register(
      async (bind) => {
        pageScope(bind, deps);
        bindingReturnRoute(bind, deps, bindings, admitted);
        if (deps.payer) sandboxBindingRoutes(bind, deps, bindings, admitted);
      },
      { prefix: '/bind' },
    );
  }
  if (deps.links) {
    const links = deps.links;
    app.register(
      async (l) => {
        pageScope(l, deps);
        linkRoutes(l, deps, links, admitted);
      },
      { prefix: '/l' },
    );
  }
  return streams;
}

/**
 * A payment link's page (docs/payment-links.md#the-page) and the payer's choice on it: the choice
 * makes an ordinary payment through the link, and the payer goes on to its checkout page.
 */
function linkRoutes(
  l: FastifyInstance,
  deps: CheckoutDeps,
  links: PaymentLinkService,
  admitted: (request: FastifyRequest, reply: FastifyReply, limit: keyof CheckoutLimits) => boolean,
): void {
  /** The link's page, or what it says when it takes no payment (410), or not found. */
  async function show(request: FastifyRequest<{ Params: { id: string } }>, reply: FastifyReply, problem?: LinkProblem) {
    const lang = langFor(request);
    const t = TEXT[lang];
    const opened = await links.open(request.params.id);
    if (!opened) return sendMessage(request, reply, 404, t.notFoundTitle, t.notFound);
    if (opened.state !== 'open') {
      const closed = closedLinkText(opened.state, lang);
      return sendMessage(request, reply, 410, closed.title, closed.text);
    }
    const fields = problem ? new URLSearchParams(rawBodyOf(request).toString('utf8')) : undefined;
    const page = linkPage({
      link: opened.link,
      merchantName: opened.merchant.merchantName || opened.merchant.name,
      lang,
      problem,
      typed: { method: fields?.get('method') ?? undefined, amount: fields?.get('amount') ?? undefined },
    });
    return sendPage(reply, problem ? (problem === 'refused' ? 409 : 400) : 200, page);
  }

  l.get<{ Params: { id: string } }>('/:id', async (request, reply) => {
    if (!admitted(request, reply, 'pagePerMin')) return reply;
    return show(request, reply);
  });

  l.post<{ Params: { id: string } }>('/:id', async (request, reply) => {
    // Each choice makes a payment: fewer a minute than pages.
    if (!admitted(request, reply, 'linkPayPerMin')) return reply;
    const t = TEXT[langFor(request)];
    if (!isSameOrigin(request, deps.publicUrl())) return sendMessage(request, reply, 403, t.refusedTitle, t.refused);
    const fields = new URLSearchParams(rawBodyOf(request).toString('utf8'));
    const made = await links.pay(
      request.params.id,
      { method: (fields.get('method') ?? '').slice(0, 64), amount: (fields.get('amount') ?? '').slice(0, 32) },
      request.id,
    );
    if ('checkoutUrl' in made) return reply.redirect(`${made.checkoutUrl}?lang=${langFor(request)}`, 303);
    if (made.problem === 'closed') return show(request, reply);
    if (made.problem === 'refused') {
      deps.logger.warn(
        { reqId: request.id, link: request.params.id, detail: made.detail },
        'a payment link’s payment was refused',
      );
    }
    return show(request, reply, made.problem);
  });
}

/**
 * What every page of the payer's gets: the checkout's CSP, no sniffing, no referrer, its own
 * window, not stored unless said; and an HTML page, never a stack, for an error or an unknown path.
 */
function pageScope(scope: FastifyInstance, deps: CheckoutDeps): void {
  scope.addHook('onSend', (_request, reply, payload, done) => {
    if (!reply.getHeader('content-security-policy')) {
      reply.header('content-security-policy', contentSecurityPolicy());
    }
    reply.header('x-content-type-options', 'nosniff');
    reply.header('referrer-policy', 'no-referrer');
    reply.header('cross-origin-opener-policy', 'same-origin');
    if (!reply.getHeader('cache-control')) reply.header('cache-control', 'no-store');
    done(null, payload);
  });
  scope.setErrorHandler((error, request, reply) => {
    const status = (error as { statusCode?: number }).statusCode;
    const t = TEXT[langFor(request)];
    if (typeof status === 'number' && status >= 400 && status < 500) {
      return sendMessage(request, reply, status === 413 ? 413 : 400, t.errorTitle, t.error);
    }
    deps.logger.error({ reqId: request.id, err: error, url: request.routeOptions.url }, 'checkout request failed');
    return sendMessage(request, reply, 500, t.errorTitle, t.error);
  });
  scope.setNotFoundHandler((request, reply) => {
    const t = TEXT[langFor(request)];
    return sendMessage(request, reply, 404, t.notFoundTitle, t.notFound);
  });
}

/** A sandbox wallet form's `answer`: true to approve, false to decline, undefined for anything else. */
function approvedIn(request: FastifyRequest): boolean | undefined {
  const answer = new URLSearchParams(rawBodyOf(request).toString('utf8')).get('answer');
  return answer === 'approve' ? true : answer === 'decline' ? false : undefined;
}

/**
 * `POST /pay/<id>/sandbox-pay` (sandbox mode): pays the transaction as the sandbox acquirer (QRIS)
 * or bank (VA) would, through the provider API, exactly as the console's sandbox actions do. No
 * session and so no CSRF token: a form from another site is refused by its Origin.
 */
function sandboxPayRoute(
  pay: FastifyInstance,
  deps: CheckoutDeps,
  payer: SandboxPayer,
  admitted: (request: FastifyRequest, reply: FastifyReply, limit: keyof CheckoutLimits) => boolean,
): void {
  pay.post<{ Params: { id: string } }>('/:id/sandbox-pay', async (request, reply) => {
    if (!admitted(request, reply, 'sandboxPayPerMin')) return reply;
    const t = TEXT[langFor(request)];
    if (!isSameOrigin(request, deps.publicUrl())) return sendMessage(request, reply, 403, t.refusedTitle, t.refused);
    const txn = await deps.reads.byCheckoutId(request.params.id);
    if (!txn) return sendMessage(request, reply, 404, t.notFoundTitle, t.notFound);
    const back = `/pay/${request.params.id}`;
    const view = await checkoutView({ reads: deps.reads, isSandbox: true }, txn, deps.clock.now());
    const fields = new URLSearchParams(rawBodyOf(request).toString('utf8'));
    const amount = view.sandbox?.needsAmount ? sandboxAmount(fields.get('amount') ?? undefined) : undefined;
    if (!view.sandbox?.canPay || (view.sandbox.needsAmount && !amount)) {
      return reply.redirect(`${back}?sandbox=refused`, 303);
    }
    const who = {
      payerName: 'SANDBOX PAYER',
      payerIssuer: '93600009',
      payerRefId: String(100_000_000_000 + randomInt(900_000_000_000)),
    };
    try {
      switch (txn.kind) {
        case 'qris':
          await payer.payQris({ referenceNo: txn.referenceNo }, { status: '00', payer: who, requestId: request.id });
          break;
        case 'va':
          await payer.payVa(txn.virtualAccountNo as string, {
            ...(amount ? { amount } : {}),
            payer: who,
            requestId: request.id,
          });
          break;
        case 'ewallet':
          await payer.payEwallet(txn.referenceNo, { status: '00', payer: who, requestId: request.id });
          break;
        default:
          assertNever(txn, 'payment method');
      }
    } catch (e) {
      if (!isRefusal(e)) throw e;
      return reply.redirect(`${back}?sandbox=refused`, 303);
    }
    return reply.redirect(back, 303);
  });
}

/**
 * `GET /pay/<id>/wallet` and its forms (sandbox mode): the sandbox wallet's page, an e-wallet
 * payment's `webRedirectUrl`. Approve or Decline is the payer's answer, which the sandbox wallet
 * tells the gateway at its notify door (`debit/notify`) as a real wallet would; then back to the
 * checkout page, which shows the outcome (and returns to the shop once paid).
 */
function sandboxWalletRoutes(
  pay: FastifyInstance,
  deps: CheckoutDeps,
  payer: SandboxPayer,
  admitted: (request: FastifyRequest, reply: FastifyReply, limit: keyof CheckoutLimits) => boolean,
): void {
  /** A payment of the sandbox wallet (a connected wallet's, made there, has its own page). */
  const walletTxn = async (id: string) => {
    const txn = await deps.reads.byCheckoutId(id);
    return txn?.kind === 'ewallet' && txn.details.upstream === undefined ? txn : undefined;
  };
  pay.get<{ Params: { id: string } }>('/:id/wallet', async (request, reply) => {
    if (!admitted(request, reply, 'pagePerMin')) return reply;
    const lang = langFor(request);
    rememberLang(request, reply);
    reply.header('vary', 'accept-language, cookie');
    const txn = await walletTxn(request.params.id);
    if (!txn) return sendMessage(request, reply, 404, TEXT[lang].notFoundTitle, TEXT[lang].notFound);
    const view = await checkoutView({ reads: deps.reads, isSandbox: true }, txn, deps.clock.now());
    return sendPage(reply, 200, walletPage({ view, lang }), []);
  });

  pay.post<{ Params: { id: string } }>('/:id/wallet', async (request, reply) => {
    if (!admitted(request, reply, 'sandboxPayPerMin')) return reply;
    const t = TEXT[langFor(request)];
    if (!isSameOrigin(request, deps.publicUrl())) return sendMessage(request, reply, 403, t.refusedTitle, t.refused);
    const txn = await walletTxn(request.params.id);
    if (!txn) return sendMessage(request, reply, 404, t.notFoundTitle, t.notFound);
    const back = `/pay/${request.params.id}`;
    const approve = approvedIn(request);
    if (approve === undefined) return sendMessage(request, reply, 400, t.errorTitle, t.error);
    const who = { payerName: 'SANDBOX PAYER', payerRefId: String(100_000_000_000 + randomInt(900_000_000_000)) };
    try {
      await payer.payEwallet(txn.referenceNo, {
        status: approve ? '00' : '06',
        payer: who,
        requestId: request.id,
      });
    } catch (e) {
      if (!isRefusal(e)) throw e;
      return reply.redirect(`${back}?sandbox=refused`, 303);
    }
    return reply.redirect(back, 303);
  });
}

/**
 * `GET /bind/<consentId>/return`: the customer back from a connected wallet's page
 * (docs/ewallets.md#binding-at-a-connected-wallet), with the wallet's `authCode` when they approved.
 * snapgate trades it there, then sends the customer back to the merchant as the sandbox wallet's
 * page does. Any other answer (no code, `resultCode` other than `00`) is a decline.
 */
function bindingReturnRoute(
  bind: FastifyInstance,
  deps: CheckoutDeps,
  bindings: BindingService,
  admitted: (request: FastifyRequest, reply: FastifyReply, limit: keyof CheckoutLimits) => boolean,
): void {
  bind.get<{ Params: { id: string }; Querystring: Record<string, unknown> }>('/:id/return', async (request, reply) => {
    if (!admitted(request, reply, 'pagePerMin')) return reply;
    const lang = langFor(request);
    const t = TEXT[lang];
    const q = request.query;
    const given = typeof q.authCode === 'string' ? q.authCode : typeof q.auth_code === 'string' ? q.auth_code : '';
    const refused = typeof q.resultCode === 'string' && q.resultCode !== '00';
    const authCode = refused || given.length > 2048 ? undefined : given;
    const back = await bindings.returned(request.params.id, authCode, deps.clock.now());
    if (!back) return sendMessage(request, reply, 404, t.notFoundTitle, t.notFound);
    reply.header('cache-control', 'no-store');
    const page = boundPage({
      consentId: request.params.id,
      back,
      approved: new URL(back).searchParams.has('authCode'),
      lang,
    });
    return sendPage(reply, 200, page);
  });
}

/**
 * `GET /bind/<consentId>` and its form (sandbox mode): the sandbox wallet's consent page of an
 * account binding (docs/ewallets.md#account-binding), the stand-in for the wallet's app. The answer
 * sends the customer back to the merchant's redirectUrl: with a one-time authCode when approved.
 */
function sandboxBindingRoutes(
  bind: FastifyInstance,
  deps: CheckoutDeps,
  bindings: BindingService,
  admitted: (request: FastifyRequest, reply: FastifyReply, limit: keyof CheckoutLimits) => boolean,
): void {
  bind.get<{ Params: { id: string } }>('/:id', async (request, reply) => {
    if (!admitted(request, reply, 'pagePerMin')) return reply;
    const lang = langFor(request);
    rememberLang(request, reply);
    reply.header('vary', 'accept-language, cookie');
    const t = TEXT[lang];
    const consent = await bindings.consent(request.params.id, deps.clock.now());
    if (!consent) return sendMessage(request, reply, 404, t.notFoundTitle, t.notFound);
    const page = bindingPage({ consentId: request.params.id, lang, ...consent });
    return sendPage(reply, 200, page);
  });

  bind.post<{ Params: { id: string } }>('/:id', async (request, reply) => {
    if (!admitted(request, reply, 'sandboxPayPerMin')) return reply;
    const lang = langFor(request);
    const t = TEXT[lang];
    if (!isSameOrigin(request, deps.publicUrl())) return sendMessage(request, reply, 403, t.refusedTitle, t.refused);
    const approve = approvedIn(request);
    if (approve === undefined) return sendMessage(request, reply, 400, t.errorTitle, t.error);
    const back = await bindings.answer(request.params.id, approve, deps.clock.now());
    if (!back) return sendMessage(request, reply, 404, t.notFoundTitle, t.notFound);
    // The way back carries the one-time authCode: never cached, never sent on as a referrer.
    reply.header('cache-control', 'no-store');
    const page = boundPage({ consentId: request.params.id, back, approved: approve, lang });
    return sendPage(reply, 200, page);
  });
}

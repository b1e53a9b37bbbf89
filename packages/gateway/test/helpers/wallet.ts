import assert from 'node:assert/strict';
import { createServer, type IncomingMessage, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import {
  formatJakartaTimestamp,
  serviceStringToSign,
  tokenStringToSign,
  verifyHmacSha256,
  verifyHmacSha512,
} from '@snapgate/snap';
import type { Clock } from '../../src/clock.ts';
import { startGateway, type TestGateway } from './gateway.ts';
import { ACK, startReceiver } from './receiver.ts';
import { authenticate, postToken, type SnapCaller } from './snap.ts';
import type { StoreUnderTest } from './store-under-test.ts';

/** The credentials this wallet gave snapgate (its outbound settings there). */
export const WALLET_CLIENT = {
  clientKey: 'snapgate-at-wallet',
  clientSecret: 'wallet-issued-secret-0123456789',
  partnerId: 'SNAPGATE-MERCHANT-1',
};
const TOKEN = 'wallet-token-for-snapgate';

/** One call snapgate made to the wallet, its signature checked. */
export interface WalletCall {
  path: string;
  body: Record<string, any>;
  externalId: string;
  requestId: string | undefined;
  /** The customer's token it carried (`Authorization-Customer: Bearer …`), if any. */
  customerToken: string | undefined;
}

/** A customer's binding at this wallet: its codes and tokens as the wallet issued them. */
interface WalletBinding {
  reference: string;
  redirectUrl: string;
  authCode?: string;
  accessToken?: string;
  accessTokenExpiresAt?: number;
  refreshToken?: string;
  unbound?: boolean;
}

/** How the wallet answers a path (below its prefix), e.g. `debit/payment-host-to-host`. */
export type WalletAnswerer = (body: Record<string, any>) => WalletAnswer | Promise<WalletAnswer>;
export type WalletAnswer =
  | { status: number; body: Record<string, unknown> }
  | { raw: string }
  /** Never answers while held (until released). */
  | { hold: true };

const ok = (responseCode: string, more: Record<string, unknown> = {}) => ({
  status: 200,
  body: { responseCode, responseMessage: 'Successful', ...more },
});

/** The answers of a wallet that takes every call. */
const DEFAULT_ANSWERS: Record<string, (body: Record<string, any>) => WalletAnswer> = {
  'debit/payment-host-to-host': (b) =>
    ok('2005400', {
      referenceNo: `W${b.partnerReferenceNo}`,
      partnerReferenceNo: b.partnerReferenceNo,
      webRedirectUrl: `https://wallet.example/authorise/W${b.partnerReferenceNo}`,
      appRedirectUrl: `walletapp://authorise?ref=W${b.partnerReferenceNo}`,
    }),
  'debit/status': (b) =>
    ok('2005500', { originalPartnerReferenceNo: b.originalPartnerReferenceNo, latestTransactionStatus: '01' }),
  'debit/cancel': (b) => ok('2005700', { originalPartnerReferenceNo: b.originalPartnerReferenceNo }),
  'debit/refund': (b) => ok('2005800', { partnerRefundNo: b.partnerRefundNo, refundNo: `WR${b.partnerRefundNo}` }),
};

const read = async (req: IncomingMessage) => {
  const chunks: Buffer[] = [];
  for await (const c of req) chunks.push(c as Buffer);
  return Buffer.concat(chunks).toString('utf8');
};

/**
 * An e-wallet's SNAP Direct Debit server, over real HTTP: it issues snapgate a B2B token (the token
 * request checked HMAC-SHA256 with the credentials above) and takes its 54, 55, 57 and 58, each
 * checked HMAC-SHA512 as SNAP signs them, answering as `answers` says (a wallet that takes every
 * call by default). A call whose signature does not verify is answered 401 and not recorded.
 */
export async function startWallet() {
  const calls: WalletCall[] = [];
  const answers = new Map<string, WalletAnswerer>();
  const held: Array<() => void> = [];
  const bindings = new Map<string, WalletBinding>();
  let baseUrl = '';
  let issued = 0;
  /** How long the customer tokens it issues are good for (`accessTokenExpiryTime`). */
  let customerTokenTtlMs = 60 * 60_000;
  const bindingOf = (find: (b: WalletBinding) => boolean) => [...bindings.values()].find((b) => !b.unbound && find(b));
  const customerOf = (authorization: string) => {
    const token = /^Bearer (.+)$/.exec(authorization)?.[1];
    // A customer token is taken until it lapses.
    const now = Date.now();
    return token === undefined
      ? undefined
      : bindingOf((b) => b.accessToken === token && (b.accessTokenExpiresAt ?? 0) > now);
  };
  /** New tokens for a binding: the previous ones (and its authCode) are dead. */
  const tokensFor = (b: WalletBinding) => {
    b.authCode = undefined;
    b.accessToken = `wallet-customer-${++issued}`;
    b.accessTokenExpiresAt = Date.now() + customerTokenTtlMs;
    b.refreshToken = `wallet-refresh-${issued}`;
    return {
      responseCode: '2007400',
      responseMessage: 'Successful',
      accessToken: b.accessToken,
      tokenType: 'Bearer',
      accessTokenExpiryTime: formatJakartaTimestamp(b.accessTokenExpiresAt),
      refreshToken: b.refreshToken,
      refreshTokenExpiryTime: formatJakartaTimestamp(Date.now() + 30 * 24 * 3_600_000),
    };
  };
  const server: Server = createServer(async (req, res) => {
    const raw = await read(req);
    const path = req.url ?? '';
    const h = (name: string) => {
      const v = req.headers[name];
      return typeof v === 'string' ? v : '';
    };
    const send = (status: number, body: Record<string, unknown>) =>
      res.writeHead(status, { 'content-type': 'application/json' }).end(JSON.stringify(body));
    // The wallet's consent page, as the customer answers it: back to snapgate's redirectUrl.
    const consent = /^\/consent\/([^/?]+)\?answer=(approve|decline)$/.exec(path);
    if (consent && req.method === 'GET') {
      const b = bindings.get(decodeURIComponent(consent[1] as string));
      if (!b) return send(404, { responseCode: '4040000', responseMessage: 'Not Found' });
      const back = new URL(b.redirectUrl);
      if (consent[2] === 'approve') {
        b.authCode = `wallet-code-${++issued}`;
        back.searchParams.set('authCode', b.authCode);
      } else back.searchParams.set('resultCode', '06');
      return res.writeHead(302, { location: back.href }).end();
    }
    if (path === '/snap/v1.0/access-token/b2b2c') {
      const signed =
        h('x-client-key') === WALLET_CLIENT.clientKey &&
        verifyHmacSha256(
          WALLET_CLIENT.clientSecret,
          tokenStringToSign(h('x-client-key'), h('x-timestamp')),
          h('x-signature'),
        );
      const body = JSON.parse(raw || '{}') as Record<string, any>;
      if (!signed) return send(401, { responseCode: '4017400', responseMessage: 'Unauthorized. [Signature]' });
      calls.push({ path: 'access-token/b2b2c', body, externalId: '', requestId: undefined, customerToken: undefined });
      const answer = answers.get('access-token/b2b2c');
      if (answer) {
        const a = await answer(body);
        if ('status' in a) return send(a.status, a.body);
      }
      const b =
        body.grantType === 'AUTHORIZATION_CODE'
          ? bindingOf((x) => x.authCode !== undefined && x.authCode === body.authCode)
          : bindingOf((x) => x.refreshToken !== undefined && x.refreshToken === body.refreshToken);
      if (!b) return send(401, { responseCode: '4017400', responseMessage: 'Unauthorized. [Invalid Grant]' });
      return send(200, tokensFor(b));
    }
    if (path === '/snap/v1.0/access-token/b2b') {
      const signed = verifyHmacSha256(
        WALLET_CLIENT.clientSecret,
        tokenStringToSign(h('x-client-key'), h('x-timestamp')),
        h('x-signature'),
      );
      if (!signed || h('x-client-key') !== WALLET_CLIENT.clientKey) {
        return send(401, { responseCode: '4017300', responseMessage: 'Unauthorized. [Signature]' });
      }
      return send(200, {
        responseCode: '2007300',
        responseMessage: 'Successful',
        accessToken: TOKEN,
        expiresIn: '900',
      });
    }
    const signed =
      h('authorization') === `Bearer ${TOKEN}` &&
      h('x-partner-id') === WALLET_CLIENT.partnerId &&
      /^\d{1,36}$/.test(h('x-external-id')) &&
      verifyHmacSha512(
        WALLET_CLIENT.clientSecret,
        serviceStringToSign({ method: 'POST', path, accessToken: TOKEN, rawBody: raw, timestamp: h('x-timestamp') }),
        h('x-signature'),
      );
    if (!signed) return send(401, { responseCode: '4010000', responseMessage: 'Unauthorized. [Signature]' });
    const below = path.replace(/^\/snap\/v1\.0\//, '');
    const body = JSON.parse(raw || '{}') as Record<string, any>;
    const customerToken = /^Bearer (.+)$/.exec(h('authorization-customer'))?.[1];
    calls.push({
      path: below,
      body,
      externalId: h('x-external-id'),
      requestId: h('x-request-id') || undefined,
      customerToken,
    });
    const svc = { 'debit/payment-host-to-host': '54', 'registration-account-unbinding': '09' }[below];
    const customer = customerToken === undefined ? undefined : customerOf(h('authorization-customer'));
    if (svc && customerToken !== undefined && !customer) {
      return send(401, { responseCode: `401${svc}02`, responseMessage: 'Unauthorized. [Invalid Customer Token]' });
    }
    if (below === 'registration-account-binding' && !answers.has(below)) {
      const reference = `WB${body.partnerReferenceNo}`;
      bindings.set(reference, { reference, redirectUrl: String(body.redirectUrl) });
      return send(200, {
        responseCode: '2000700',
        responseMessage: 'Successful',
        referenceNo: reference,
        partnerReferenceNo: body.partnerReferenceNo,
        redirectUrl: `${baseUrl}/consent/${reference}`,
      });
    }
    if (below === 'registration-account-unbinding' && !answers.has(below)) {
      if (!customer)
        return send(401, { responseCode: '4010902', responseMessage: 'Unauthorized. [Invalid Customer Token]' });
      customer.unbound = true;
      return send(200, { responseCode: '2000900', responseMessage: 'Successful', unlinkResult: 'success' });
    }
    if (below === 'debit/payment-host-to-host' && customer && !answers.has(below)) {
      // A bound payment: debited from the bound account, no page for the payer.
      return send(200, {
        responseCode: '2005400',
        responseMessage: 'Successful',
        referenceNo: `W${body.partnerReferenceNo}`,
        partnerReferenceNo: body.partnerReferenceNo,
      });
    }
    const answer = await (answers.get(below) ?? DEFAULT_ANSWERS[below])?.(body);
    if (!answer) return send(404, { responseCode: '4040000', responseMessage: 'Not Found' });
    if ('hold' in answer) {
      await new Promise<void>((r) => held.push(r));
      return send(503, { responseCode: '5030000', responseMessage: 'Too late' });
    }
    if ('raw' in answer) return res.writeHead(200, { 'content-type': 'text/html' }).end(answer.raw);
    return send(answer.status, answer.body);
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  baseUrl = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  return {
    baseUrl,
    calls,
    /** The outbound settings snapgate holds at this wallet (its SNAP paths under `/snap/v1.0`). */
    outbound: { baseUrl, ...WALLET_CLIENT, tokenPath: '/snap/v1.0/access-token/b2b', pathPrefix: '/snap/v1.0' },
    /** Answers `path` so from now on (`undefined`: as a wallet that takes every call). */
    answer(path: string, how: WalletAnswerer | undefined) {
      if (how) answers.set(path, how);
      else answers.delete(path);
    },
    /** What a wallet that takes every call answers `body` at `path`. */
    taking: (path: string, body: Record<string, any>) => DEFAULT_ANSWERS[path]?.(body) as WalletAnswer,
    /** The customer tokens this wallet issues from now on are good for `ms` (default 1 h). */
    customerTokensLast(ms: number) {
      customerTokenTtlMs = ms;
    },
    /** The wallet stops taking a binding's access token before the time it said (its refresh token still works). */
    lapseAccessToken(reference: string) {
      const b = bindings.get(reference);
      if (b) b.accessTokenExpiresAt = 0;
    },
    /** Whether the customer's account is still bound at this wallet. */
    isBound: (reference: string) => bindings.get(reference)?.unbound !== true,
    /** The customer ends the binding in the wallet's app: its tokens stop working. */
    unbindInApp(reference: string) {
      const b = bindings.get(reference);
      if (b) b.unbound = true;
    },
    /** The customer tokens the wallet gave for a binding (its reference `WB<snapgate's reference>`). */
    tokensOf: (reference: string) => {
      const b = bindings.get(reference);
      return { accessToken: b?.accessToken, refreshToken: b?.refreshToken };
    },
    /** The calls made to `path`. */
    callsTo: (path: string) => calls.filter((c) => c.path === path),
    async close() {
      for (const release of held.splice(0)) release();
      server.closeAllConnections();
      await new Promise<void>((r) => server.close(() => r()));
    },
  };
}

export type TestWallet = Awaited<ReturnType<typeof startWallet>>;

/** The wallet registered through the admin API as the e-wallet provider of `payOption`: the provider as answered. */
export async function registerWallet(gw: TestGateway, wallet: TestWallet, payOption = 'DANA') {
  const made = await gw.admin('POST', '/providers', {
    name: `${payOption} wallet`,
    kind: 'ewallet',
    payOption,
    outbound: wallet.outbound,
  });
  assert.equal(made.status, 201, JSON.stringify(made.body));
  return made.body as { id: string; clientKey: string; clientSecret: string } & Record<string, any>;
}

/** The wallet as the admin API registers it, and as a SNAP client of the gateway's notify door. */
export async function connectWallet(gw: TestGateway, wallet: TestWallet, payOption = 'DANA') {
  const view = await registerWallet(gw, wallet, payOption);
  const token = await postToken(gw.url, { clientKey: view.clientKey, clientSecret: view.clientSecret });
  assert.equal(token.status, 200, token.text);
  const caller: SnapCaller = {
    clientKey: view.clientKey,
    clientSecret: view.clientSecret,
    partnerId: view.clientKey,
    accessToken: token.body.accessToken,
  };
  return { view, caller };
}

/**
 * A dispatching gateway on `under` with a connected wallet (`DANA`, over HTTP) and a merchant
 * whose receiver acknowledges every callback: the wallet suites' world, closed by `close`.
 */
export async function startWalletWorld(under: StoreUnderTest, merchantName: string, clock?: Clock) {
  const wallet = await startWallet();
  const receiver = await startReceiver((_req, res) => {
    res.writeHead(200, { 'content-type': 'application/json' }).end(ACK);
  });
  const opened = await under.open();
  const gw = await startGateway({
    store: opened.store,
    clock,
    dispatch: true,
    env: { SNAPGATE_RATE_LIMIT: 'off', SNAPGATE_RETRY_SCHEDULE: '0s,50ms', SNAPGATE_UPSTREAM_TIMEOUT_MS: '1500' },
  });
  const connected = await connectWallet(gw, wallet);
  const m = await gw.createMerchant({ name: merchantName, callbackBaseUrl: receiver.baseUrl });
  return {
    gw,
    wallet,
    receiver,
    m,
    c: await authenticate(gw.url, m),
    /** The wallet as a SNAP client of the gateway's notify door, and its provider id. */
    dana: connected.caller,
    danaId: connected.view.id as string,
    async close() {
      await gw.close();
      await opened.cleanup();
      await wallet.close();
      await receiver.close();
    },
  };
}

/** The sandbox wallet's consent form (account binding), posted as its page would (same origin). */
export const answerConsent = (consentUrl: string, answer: string, site = 'same-origin') =>
  fetch(consentUrl, {
    method: 'POST',
    headers: { 'content-type': 'application/x-www-form-urlencoded', 'sec-fetch-site': site },
    body: `answer=${answer}`,
    redirect: 'manual',
  });

/** Where the consent page sends the customer back to after the answer: the link on the page. */
export async function backOf(res: Response): Promise<URL> {
  const page = await res.text();
  const href = /id="bind-back" href="([^"]+)"/.exec(page)?.[1];
  assert.ok(href, page);
  return new URL(href.replaceAll('&amp;', '&'));
}

/** The customer approves at the consent page: the one-time authCode they come back with. */
export async function approvedAuthCode(consentUrl: string): Promise<string> {
  const authCode = (await backOf(await answerConsent(consentUrl, 'approve'))).searchParams.get('authCode');
  assert.ok(authCode, 'an approved binding comes back with its authCode');
  return authCode;
}

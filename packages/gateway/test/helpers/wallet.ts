import assert from 'node:assert/strict';
import { createServer, type IncomingMessage, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { serviceStringToSign, tokenStringToSign, verifyHmacSha256, verifyHmacSha512 } from '@snapgate/snap';
import type { TestGateway } from './gateway.ts';

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
  const server: Server = createServer(async (req, res) => {
    const raw = await read(req);
    const path = req.url ?? '';
    const h = (name: string) => {
      const v = req.headers[name];
      return typeof v === 'string' ? v : '';
    };
    const send = (status: number, body: Record<string, unknown>) =>
      res.writeHead(status, { 'content-type': 'application/json' }).end(JSON.stringify(body));
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
    calls.push({ path: below, body, externalId: h('x-external-id'), requestId: h('x-request-id') || undefined });
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
  const baseUrl = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
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

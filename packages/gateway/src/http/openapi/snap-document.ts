import { B2B_TOKEN_PATH } from '@snapgate/snap';
import { methodOf, TRANSACTION_KINDS } from '../../methods/index.ts';
import type { TransactionKind } from '../../records/records.ts';
import { CANONICAL_MOUNTS, CANONICAL_SNAP_PREFIX, profileRoutes, type SnapMounts } from '../../snap-mounts.ts';
import { DEBIT_SCHEMAS } from './debit-schemas.ts';
import { json, OAS_DIALECT, type OpenApiDocument, type Operation, type PathItem, paramRef, ref } from './kit.ts';
import { merchantSecurity, NOW, SNAP_PARAMETERS, TAG } from './snap-kit.ts';
import { SNAP_SCHEMAS } from './snap-schemas.ts';

// The SNAP API document: every route declares its operation where it is registered (route-docs.ts;
// a SNAP route served under several mounts is documented once, at its canonical path), written
// with the helpers of snap-kit.ts; the bodies are the components of snap-schemas.ts. What stays here is what no route file of this API serves: the callbacks
// merchants receive (webhooks, sent by delivery/) and the key that verifies them (served by
// app.ts). Every answer is proven by test/http/openapi.test.ts against the running gateway.

const CALLBACK_PUBLIC_KEY: Operation = {
  operationId: 'callbackPublicKey',
  tags: [TAG.public],
  summary: 'The key that verifies `rsa-sha256` callbacks',
  description:
    'The gateway’s RSA public key (SPKI, PEM). A merchant whose `callbackSignature` is `rsa-sha256` verifies every callback with it.',
  security: [],
  responses: {
    '200': {
      description: 'The PEM.',
      content: {
        'application/x-pem-file': {
          schema: { type: 'string', pattern: '^-----BEGIN PUBLIC KEY-----\\n' },
          examples: {
            pem: {
              value:
                '-----BEGIN PUBLIC KEY-----\nMIIBIjANBgkqhkiG9w0BAQEFAAOCAQ8AMIIBCgKCAQEA…\n-----END PUBLIC KEY-----\n',
            },
          },
        },
      },
    },
  },
};

/** What a method's callback's documentation shows: its name, its operation, an example of its own. */
const WEBHOOK_DOCS: Record<TransactionKind, { what: string; operationId: string; example: WebhookExample }> = {
  qris: {
    what: 'QRIS',
    operationId: 'paymentQrNotification',
    example: { order: 'ORDER-1001', amount: '25000.00', payerIssuer: '93600009', payerName: 'ANI' },
  },
  va: {
    what: 'Virtual Account',
    operationId: 'paymentVaNotification',
    example: { order: 'INV-2026-0001', amount: '150000.00', payerIssuer: '999', payerName: 'Budi Santoso' },
  },
  ewallet: {
    what: 'e-wallet payment',
    operationId: 'debitNotification',
    example: {
      order: 'ORDER-2001',
      amount: '25000.00',
      payerIssuer: '999',
      payerName: 'ANI',
      payOption: 'SANDBOXPAY',
      fee: '375.00',
    },
  },
};

interface WebhookExample {
  order: string;
  amount: string;
  payerIssuer: string;
  payerName: string;
  /** An e-wallet's: SNAP's debit-notify shape (its wallet, and the status in words). */
  payOption?: string;
  fee?: string;
}

/** A callback's example body: snapgate's notification, or SNAP's debit notify for an e-wallet. */
function webhookBody(e: WebhookExample): Record<string, unknown> {
  const refs = { originalReferenceNo: '260115123456789012', originalPartnerReferenceNo: e.order };
  const additionalInfo = {
    payerIssuer: e.payerIssuer,
    payerName: e.payerName,
    payerRefId: '123456789012',
    billNumber: 100000000001,
    transactionDate: NOW,
    feeAmount: { value: e.fee ?? '0.00', currency: 'IDR' },
  };
  const amount = { value: e.amount, currency: 'IDR' };
  if (e.payOption === undefined) return { ...refs, latestTransactionStatus: '00', amount, additionalInfo };
  return {
    originalPartnerReferenceNo: refs.originalPartnerReferenceNo,
    originalReferenceNo: refs.originalReferenceNo,
    latestTransactionStatus: '00',
    transactionStatusDesc: 'Success',
    amount,
    additionalInfo: { payOption: e.payOption, ...additionalInfo },
  };
}

/** The callbacks merchants receive, one per payment method, named by its path (`payment-qr-notification`, `debit-notify`). */
function webhooks(): Record<string, PathItem> {
  return Object.fromEntries(
    TRANSACTION_KINDS.map((kind) => [
      methodOf(kind)
        .callback.path.replace(/^\/(webhook|v1\.0)\//, '')
        .replaceAll('/', '-'),
      webhook(kind),
    ]),
  );
}

function webhook(kind: TransactionKind): PathItem {
  const { path, urlSetting, ackCodes } = methodOf(kind).callback;
  const { what, operationId, example } = WEBHOOK_DOCS[kind];
  // A method without a merchant-wide URL setting takes a URL per payment (an e-wallet's PAY_NOTIFY).
  const where = urlSetting ? `the merchant’s \`${urlSetting}\`` : 'the payment’s `PAY_NOTIFY` url';
  const acks = ackCodes.map((c) => `\`${c}\``).join(' or ');
  return {
    post: {
      operationId,
      tags: [TAG.callbacks],
      summary: `A ${what} changed status`,
      description: `snapgate POSTs this to ${where}, by default \`<callbackBaseUrl>${path}\`, on every status change, until acknowledged (retried on \`SNAPGATE_RETRY_SCHEDULE\`). \`X-EXTERNAL-ID\` is the notification’s id, the same on every attempt and replay: drop duplicates by it, and never let an older status overwrite a newer one.\n\nThe signature depends on the merchant’s \`callbackSignature\`: \`hmac-sha512\` (default) over \`POST:<path>:<X-PARTNER-ID>:<lowerhex sha256(body)>:<X-TIMESTAMP>\` with the client secret; \`rsa-sha256\` over \`POST:<path>:<lowerhex sha256(body)>:<X-TIMESTAMP>\` by the gateway’s key (\`GET /.well-known/snapgate/callback-public-key.pem\`); \`snap-b2b\` adds \`Authorization: Bearer <token from the merchant’s token endpoint>\` and \`CHANNEL-ID\`, over \`POST:<path>:<token>:<lowerhex sha256(body)>:<X-TIMESTAMP>\` with the client secret.`,
      security: [{ callbackSignature: [] }],
      parameters: [
        paramRef('XTimestamp'),
        paramRef('XExternalIdCallback'),
        paramRef('XPartnerIdMerchant'),
        paramRef('ChannelIdCallback'),
      ],
      requestBody: {
        required: true,
        description: 'JSON: compact, or as PHP’s `json_encode` writes it (`callbackJson: php`).',
        content: json(ref(example.payOption === undefined ? 'PaymentNotification' : 'DebitNotification'), {
          example: { value: webhookBody(example) },
        }),
      },
      responses: {
        '200': {
          description: `Acknowledged: HTTP 200 and \`responseCode\` ${acks}. Answer only once the change is stored.`,
          content: json(ref('CallbackAcknowledgement'), {
            example: { value: { responseCode: '2002600', responseMessage: 'Success' } },
          }),
        },
      },
    },
  };
}

/** The SNAP API document: merchants', providers', the public resources, and the callbacks merchants receive. */
/** Where else the API is served (SNAPGATE_SNAP_PREFIXES, SNAPGATE_SNAP_PROFILES), in words. */
function mountsText(mounts: SnapMounts): string {
  const prefixes = mounts.prefixes.map((p) => `\`${p}/\``).join(', ');
  const routes = mounts.profiles.flatMap((p) =>
    profileRoutes(p).map((r) => `\`${r.method} ${r.url}\` (${p}: ${r.operation})`),
  );
  return [
    `Every SNAP call below (the token, payment and provider calls) is also served with \`${CANONICAL_SNAP_PREFIX}/\` replaced by ${prefixes || 'nothing else (SNAPGATE_SNAP_PREFIXES is none)'}, so a client written for another SNAP server works with its base URL pointed here. The signature is always checked over the path the client requested.`,
    routes.length
      ? `Compatibility profiles add these routes to the same operations: ${routes.join('; ')}.`
      : 'No compatibility profile is on (SNAPGATE_SNAP_PROFILES).',
  ].join(' ');
}

export function buildSnapDocument(options: {
  publicUrl: string;
  mounts?: SnapMounts;
  /** The operations declared with their routes (route-docs.ts), by canonical path. */
  documented: Record<string, PathItem>;
}): OpenApiDocument {
  return {
    openapi: '3.1.1',
    info: {
      title: 'snapgate SNAP API',
      version: 'v1.0',
      summary: 'Indonesia’s SNAP open payment API: QRIS and Virtual Accounts, as snapgate serves it.',
      description: [
        'Merchants take a B2B token, then make signed calls. Banks and acquirers (providers) call in with their own tokens. snapgate calls every merchant back when a transaction changes status (see the webhooks).',
        'Every signed call carries `Authorization: Bearer <token>`, `Content-Type: application/json`, `X-TIMESTAMP`, `X-SIGNATURE`, `X-PARTNER-ID`, `X-EXTERNAL-ID` and `CHANNEL-ID`, checked in that order of kind: token (401 xx01), mandatory headers present (400 xx02), well formed (400 xx01), timestamp within the clock skew window, partner and signature (401 xx00), rate limit (429 xx00), then the body (400 xx00 when it is not a JSON object).',
        '`X-EXTERNAL-ID` is the idempotency key, per client and Jakarta day: a repeat with the same body answers the first success again; a different body under it is refused 409 xx00. Refusals are not kept, so a corrected request may reuse it.',
        'Body fields: a missing mandatory field is 400 xx02 `{field}`, a field of the wrong type, length or format 400 xx01 `{field}`. An empty string counts as absent. Unknown fields are ignored. Text holding a control character (other than tab, line feed, carriage return) or an unpaired surrogate, in any field, is 400 xx01 `{field}`. `responseCode` is the HTTP status, the service code and the case code.',
        'A request over 64 KiB, or malformed HTTP, is 400 xx00. An unknown path is 404 `4040000`.',
        'Hosted checkout: QRIS generate and VA create answer `checkoutUrl`, a page at `/pay/{id}` where the payer pays and sees the status change live; `additionalInfo.returnUrl` in the request is where that page sends the payer once the payment ends. The page is for people (HTML, not an API): see the checkout guide.',
        mountsText(options.mounts ?? CANONICAL_MOUNTS),
      ].join('\n\n'),
    },
    jsonSchemaDialect: OAS_DIALECT,
    servers: [{ url: options.publicUrl, description: 'This gateway (`SNAPGATE_PUBLIC_URL`).' }],
    tags: [
      { name: TAG.token, description: 'The bearer token every signed call needs.' },
      { name: TAG.qris, description: 'Dynamic QRIS (merchant-presented): generate, query, cancel, refund.' },
      { name: TAG.va, description: 'Virtual Accounts: create, look up, update, delete.' },
      {
        name: TAG.ewallet,
        description:
          'E-wallet payments over SNAP Direct Debit: pay (the payer authorises at the wallet), status, cancel, refund.',
      },
      {
        name: TAG.transfers,
        description:
          'Disbursements: a merchant sends money out of its pending balance through the payout bank (account inquiry, transfer, status). Off until the merchant has `limits.disbursementDaily`.',
      },
      { name: TAG.bank, description: 'Banks call these for the VAs of the bank codes they own.' },
      { name: TAG.acquirer, description: 'Acquirers report QRIS payments here.' },
      { name: TAG.wallet, description: 'E-wallets report what their payers did here.' },
      { name: TAG.public, description: 'No authentication.' },
      { name: TAG.callbacks, description: 'What snapgate sends to merchants (OpenAPI webhooks).' },
    ],
    security: merchantSecurity,
    paths: {
      ...options.documented,
      '/.well-known/snapgate/callback-public-key.pem': { get: CALLBACK_PUBLIC_KEY },
    },
    webhooks: webhooks(),
    components: {
      schemas: { ...SNAP_SCHEMAS, ...DEBIT_SCHEMAS },
      parameters: SNAP_PARAMETERS,
      securitySchemes: {
        b2bToken: {
          type: 'http',
          scheme: 'bearer',
          bearerFormat: 'JWT',
          description: `A merchant’s token from \`POST ${B2B_TOKEN_PATH}\`. A provider’s token is refused here (401 xx01).`,
        },
        providerToken: {
          type: 'http',
          scheme: 'bearer',
          bearerFormat: 'JWT',
          description: `A provider’s token from \`POST ${B2B_TOKEN_PATH}\` (with the provider’s client key). A merchant’s token is refused here (401 xx01).`,
        },
        serviceSignature: {
          type: 'apiKey',
          in: 'header',
          name: 'X-SIGNATURE',
          description:
            'Base64 HMAC-SHA512, keyed with the client secret, of `METHOD:<path and query as sent>:<accessToken>:<lowerhex sha256(body bytes as sent)>:<X-TIMESTAMP>`. During a secret rotation’s overlap the previous secret is accepted too.',
        },
        tokenSignature: {
          type: 'apiKey',
          in: 'header',
          name: 'X-SIGNATURE',
          description:
            'Base64 signature of `<X-CLIENT-KEY>|<X-TIMESTAMP>`: SHA256withRSA by the client’s registered key, or HMAC-SHA256 with its client secret (a merchant’s `tokenSignature` setting decides; a provider with a key signs RSA).',
        },
        callbackSignature: {
          type: 'apiKey',
          in: 'header',
          name: 'X-SIGNATURE',
          description:
            'Base64 signature of a callback: HMAC-SHA512 over `POST:<path>:<X-PARTNER-ID>:<lowerhex sha256(body)>:<X-TIMESTAMP>`, or SHA256withRSA over `POST:<path>:<lowerhex sha256(body)>:<X-TIMESTAMP>`.',
        },
      },
    },
  };
}

import { SERVICE } from '@snapgate/snap';
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import type { Clock } from '../../clock.ts';
import type { Mode } from '../../config.ts';
import type { Logger } from '../../logger.ts';
import { withIdempotency } from '../../payments/idempotency.ts';
import type { InboundService } from '../../providers/inbound-service.ts';
import type { InboundCall } from '../../records/records.ts';
import { CANONICAL_SNAP_PREFIX as BASE, mountsOf, type SnapMounts } from '../../snap-mounts.ts';
import type { Store } from '../../store/store.ts';
import { storableText } from '../../text.ts';
import type { TokenService } from '../../tokens/token-service.ts';
import { type PathItem, paramRef } from '../openapi/kit.ts';
import { openApiPath, type RouteDocs } from '../openapi/route-docs.ts';
import {
  NOW,
  providerSecurity,
  SIGNED,
  SIGNED_HEADERS,
  snapPaths,
  TAG,
  VA_NUMBERS_EXAMPLE,
} from '../openapi/snap-kit.ts';
import { rawBodyOf } from '../raw-body.ts';
import { callingProviderOf, providerRequestOf, snapGuard, upstreamWebhookGuard } from '../snap-auth.ts';

/** Bodies kept in the inbound log, like a callback attempt's. */
const LOGGED_BODY_BYTES = 4096;
const RESPONSE_CODE = /"responseCode":"(\d{7})"/;

const ANSWER = Symbol('snapgate.inboundAnswer');
type WithAnswer = FastifyRequest & { [ANSWER]?: string };

/**
 * The provider side of SNAP (banks and acquirers calling snapgate): same guard as the payment
 * API, but only a provider's token opens it, and every call it answers is logged per provider.
 */
export function providerApiRoutes(
  app: FastifyInstance,
  deps: {
    store: Store;
    tokens: TokenService;
    clock: Clock;
    logger: Logger;
    inbound: InboundService;
    mode: Mode;
    mounts: SnapMounts;
    docs: RouteDocs;
  },
) {
  const { store, inbound, logger } = deps;
  // The log is written in batches, one transaction per event-loop turn, never in the answer's path.
  let pending: InboundCall[] = [];
  const flush = () => {
    const batch = pending;
    pending = [];
    store
      .recordInbound(batch)
      .catch((err: unknown) => logger.warn({ err, calls: batch.length }, 'inbound log write failed'));
  };
  const log = (call: InboundCall) => {
    if (pending.push(call) === 1) setImmediate(flush);
  };
  const guard = snapGuard({ tokens: deps.tokens, clock: deps.clock, audience: 'provider' });
  const webhookGuard = upstreamWebhookGuard({ store, tokens: deps.tokens, clock: deps.clock, mode: deps.mode });
  // The bank's and the acquirer's SNAP calls, under every prefix SNAP is served at.
  const snap = (path: string, name: string) => mountsOf(deps.mounts, { name, method: 'POST', path }).map((m) => m.url);
  const operations = [
    {
      urls: snap('transfer-va/inquiry', 'va-inquiry'),
      serviceCode: SERVICE.vaBankInquiry,
      name: 'va-inquiry',
      writes: false,
    },
    {
      urls: snap('transfer-va/payment', 'va-payment'),
      serviceCode: SERVICE.vaPayment,
      name: 'va-payment',
      writes: true,
    },
    {
      urls: snap('qr/qr-mpm-notify', 'qr-mpm-notify'),
      serviceCode: SERVICE.qrisNotify,
      name: 'qr-mpm-notify',
      writes: true,
    },
    {
      urls: snap('debit/notify', 'debit-notify'),
      serviceCode: SERVICE.debitNotify,
      name: 'debit-notify',
      writes: true,
    },
    // Another snapgate upstream calls back in its own callback form; acknowledged with 2002600.
    {
      urls: ['/upstream/:providerId/webhook/payment-qr-notification'],
      serviceCode: SERVICE.callback,
      name: 'upstream-qr-notification',
      writes: true,
    },
  ] as const;

  // Each operation is documented once, at its first url: the canonical mount (mountsOf lists it first).
  const documented = providerApiOperations();
  for (const op of operations) {
    const path = openApiPath(op.urls[0] as string);
    const operation = documented[path]?.post;
    if (!operation) throw new TypeError(`POST ${path} has no operation`);
    deps.docs.add(path, 'post', operation);
  }
  for (const op of operations)
    for (const url of op.urls) {
      app.route({
        method: 'POST',
        url,
        config: { api: 'snap', serviceCode: op.serviceCode, operation: op.name },
        preHandler: op.name === 'upstream-qr-notification' ? webhookGuard : guard,
        onSend: (request, _reply, payload, done) => {
          if (typeof payload === 'string') (request as WithAnswer)[ANSWER] = payload;
          done(null, payload);
        },
        onResponse: (request, reply, done) => {
          const provider = callingProviderOf(request);
          done();
          if (!provider) return;
          const answer = (request as WithAnswer)[ANSWER] ?? '';
          log({
            providerId: provider.id,
            at: deps.clock.now(),
            method: request.method,
            path: request.url,
            requestBody: storableText(rawBodyOf(request).subarray(0, LOGGED_BODY_BYTES).toString('utf8')),
            httpStatus: reply.statusCode,
            responseCode: RESPONSE_CODE.exec(answer)?.[1] ?? null,
            responseBody: storableText(answer.slice(0, LOGGED_BODY_BYTES)),
            durationMs: reply.elapsedTime,
          });
        },
        handler: async (request: FastifyRequest, reply: FastifyReply) => {
          const ctx = providerRequestOf(request);
          const r = await withIdempotency(
            store,
            ctx,
            (recordFor) => {
              if (op.name === 'va-inquiry') return inbound.vaInquiry(ctx);
              if (op.name === 'va-payment') return inbound.vaPayment(ctx, recordFor);
              if (op.name === 'debit-notify') return inbound.ewalletNotify(ctx, recordFor);
              return inbound.qrisNotify(ctx, recordFor);
            },
            { writes: op.writes },
          );
          return reply.code(r.httpStatus).type('application/json').send(r.body);
        },
      });
    }
}

/** What the SNAP document says of each route of this area, by its canonical path. */
function providerApiOperations(): Record<string, PathItem> {
  const payer = { payerIssuer: '93600009', payerName: 'ANI', payerRefId: '123456789012' };
  return snapPaths([
    {
      method: 'post',
      path: `${BASE}/transfer-va/inquiry`,
      operationId: 'bankVaInquiry',
      tag: TAG.bank,
      summary: 'A bank asks for a VA’s bill',
      description: 'Called by a bank provider before its customer pays a VA of a bank code it owns.',
      serviceCode: SERVICE.vaBankInquiry,
      security: providerSecurity,
      parameters: SIGNED_HEADERS,
      request: 'BankVaInquiryRequest',
      requestExample: { ...VA_NUMBERS_EXAMPLE, inquiryRequestId: 'INQ-0001' },
      response: 'BankVaInquiryResponse',
      responseExample: {
        virtualAccountData: {
          inquiryStatus: '00',
          inquiryReason: { english: 'Success', indonesia: 'Sukses' },
          ...VA_NUMBERS_EXAMPLE,
          virtualAccountName: 'Budi Santoso',
          inquiryRequestId: 'INQ-0001',
          totalAmount: { value: '150000.00', currency: 'IDR' },
          virtualAccountTrxType: 'C',
          billDetails: [],
          freeTexts: [],
        },
      },
      cases: [...SIGNED, 'INVALID_BILL', 'PAID_BILL', 'INVALID_BILL_EXPIRED'],
    },
    {
      method: 'post',
      path: `${BASE}/transfer-va/payment`,
      operationId: 'bankVaPayment',
      tag: TAG.bank,
      summary: 'A bank’s payment flag',
      description:
        'The bank’s customer paid the VA: Initiated (01) → Success (00), and the merchant is notified. Idempotent on `paymentRequestId`: a repeat (same VA, same `paidAmount`) answers the first answer again; a used `paymentRequestId` for another VA or amount is 409 Conflict and changes nothing.',
      serviceCode: SERVICE.vaPayment,
      security: providerSecurity,
      parameters: SIGNED_HEADERS,
      request: 'BankVaPaymentRequest',
      requestExample: {
        ...VA_NUMBERS_EXAMPLE,
        paymentRequestId: 'PAY-0001',
        paidAmount: { value: '150000.00', currency: 'IDR' },
        referenceNo: 'BNK-000123',
        flagAdvise: 'N',
      },
      response: 'BankVaPaymentResponse',
      responseExample: {
        virtualAccountData: {
          paymentFlagStatus: '00',
          paymentFlagReason: { english: 'Success', indonesia: 'Sukses' },
          paymentRequestId: 'PAY-0001',
          paidAmount: { value: '150000.00', currency: 'IDR' },
          ...VA_NUMBERS_EXAMPLE,
          virtualAccountName: 'Budi Santoso',
          trxDateTime: NOW,
        },
      },
      cases: [...SIGNED, 'INVALID_BILL', 'PAID_BILL', 'INVALID_BILL_EXPIRED', 'INVALID_AMOUNT'],
    },
    {
      method: 'post',
      path: `${BASE}/qr/qr-mpm-notify`,
      operationId: 'qrMpmNotify',
      tag: TAG.acquirer,
      summary: 'An acquirer’s QRIS payment notification',
      description:
        'An acquirer provider reports what the payer did with a QRIS; the merchant is notified of every change.',
      serviceCode: SERVICE.qrisNotify,
      security: providerSecurity,
      parameters: SIGNED_HEADERS,
      request: 'QrisPaymentNotification',
      requestExample: {
        originalReferenceNo: 'ACQ-99001',
        originalPartnerReferenceNo: '260115123456789012',
        latestTransactionStatus: '00',
        amount: { value: '25000.00', currency: 'IDR' },
        additionalInfo: payer,
      },
      response: 'QrMpmNotifyResponse',
      responseExample: {},
      cases: [...SIGNED, 'TRANSACTION_NOT_FOUND'],
    },
    {
      method: 'post',
      path: `${BASE}/debit/notify`,
      operationId: 'debitNotify',
      tag: TAG.wallet,
      summary: 'An e-wallet’s payment notification',
      description:
        'An e-wallet provider reports what its payer did with a payment it serves (`00` authorised, `06` declined or failed); the merchant is notified. `originalPartnerReferenceNo` is snapgate’s referenceNo, `originalReferenceNo` the wallet’s own.',
      serviceCode: SERVICE.debitNotify,
      security: providerSecurity,
      parameters: SIGNED_HEADERS,
      request: 'DebitNotifyRequest',
      requestExample: {
        originalPartnerReferenceNo: '260115123456789013',
        originalReferenceNo: 'SBW1A2B3C4D5E6',
        latestTransactionStatus: '00',
        amount: { value: '25000.00', currency: 'IDR' },
        additionalInfo: { payerName: 'ANI' },
      },
      response: 'DebitNotifyResponse',
      responseExample: {},
      cases: [...SIGNED, 'TRANSACTION_NOT_FOUND', 'CONFLICT'],
    },
    {
      method: 'post',
      path: '/upstream/{providerId}/webhook/payment-qr-notification',
      operationId: 'upstreamQrNotification',
      tag: TAG.acquirer,
      summary: 'Another snapgate’s QRIS callback',
      description:
        'An acquirer that is itself a snapgate calls back here in its callback form: set the merchant’s `callbackBaseUrl` there to `<this gateway>/upstream/<providerId>`. Signed HMAC-SHA512 with the outbound client secret this gateway holds at that acquirer (and `X-PARTNER-ID` its outbound partner ID), or SHA256withRSA by the provider’s public key. No token. A bad signature is refused with 401 and changes nothing.',
      serviceCode: SERVICE.callback,
      security: [{ callbackSignature: [] }],
      parameters: [
        {
          name: 'providerId',
          in: 'path',
          required: true,
          description: 'The acquirer provider’s id here.',
          schema: { type: 'string' },
        },
        paramRef('XTimestamp'),
        paramRef('XExternalId'),
        paramRef('XPartnerIdCallback'),
      ],
      request: 'QrisPaymentNotification',
      requestExample: {
        originalReferenceNo: '260115987654321098',
        originalPartnerReferenceNo: '260115123456789012',
        latestTransactionStatus: '00',
        amount: { value: '25000.00', currency: 'IDR' },
        additionalInfo: {
          ...payer,
          billNumber: 100000000001,
          transactionDate: NOW,
          feeAmount: { value: '0.00', currency: 'IDR' },
        },
      },
      response: 'UpstreamNotificationAck',
      responseExample: {},
      cases: SIGNED.filter((c) => c !== 'INVALID_TOKEN').concat('TRANSACTION_NOT_FOUND'),
    },
  ]);
}

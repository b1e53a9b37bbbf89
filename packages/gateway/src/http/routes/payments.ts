import { SERVICE, type SnapCase } from '@snapgate/snap';
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import type { Clock } from '../../clock.ts';
import { type SnapResponse, withIdempotency } from '../../payments/idempotency.ts';
import type { QrisService } from '../../payments/qris-service.ts';
import type { MerchantRequest } from '../../payments/snap-request.ts';
import type { VaService } from '../../payments/va-service.ts';
import type { DisbursementService } from '../../payouts/disbursement-service.ts';
import { CANONICAL_SNAP_PREFIX as BASE, mountsOf, type SnapMounts } from '../../snap-mounts.ts';
import type { Store } from '../../store/store.ts';
import type { TokenService } from '../../tokens/token-service.ts';
import { json, type PathItem, ref } from '../openapi/kit.ts';
import {
  LATER,
  MERCHANT,
  merchantSecurity,
  NOW,
  SIGNED_HEADERS,
  type SnapOperation,
  snapPaths,
  TAG,
  UPSTREAM,
  VA_DATA_EXAMPLE,
  VA_NUMBERS_EXAMPLE,
} from '../openapi/snap-kit.ts';
import { merchantRequestOf, snapGuard } from '../snap-auth.ts';

type Operation = {
  method: 'POST' | 'PUT' | 'DELETE';
  path: string;
  serviceCode: string;
  name: string;
  writes: boolean;
  /** withIdempotency's createsFirst: QRIS generate and VA create. */
  createsFirst?: boolean;
  run: (ctx: MerchantRequest, recordFor: Parameters<Parameters<typeof withIdempotency>[2]>[0]) => Promise<SnapResponse>;
};

export function paymentRoutes(
  app: FastifyInstance,
  deps: {
    store: Store;
    tokens: TokenService;
    clock: Clock;
    qris: QrisService;
    va: VaService;
    transfers: DisbursementService;
    mounts: SnapMounts;
  },
) {
  const { store, qris, va, transfers } = deps;
  const guard = snapGuard({ tokens: deps.tokens, clock: deps.clock });
  const operations: Operation[] = [
    {
      method: 'POST',
      path: 'qr/qr-mpm-generate',
      serviceCode: SERVICE.qrisGenerate,
      name: 'qr-mpm-generate',
      writes: true,
      createsFirst: true,
      run: (c, r) => qris.generate(c, r),
    },
    {
      method: 'POST',
      path: 'qr/qr-mpm-query',
      serviceCode: SERVICE.qrisQuery,
      name: 'qr-mpm-query',
      writes: false,
      run: (c) => qris.query(c),
    },
    {
      method: 'POST',
      path: 'qr/qr-mpm-cancel',
      serviceCode: SERVICE.qrisCancel,
      name: 'qr-mpm-cancel',
      writes: true,
      run: (c, r) => qris.cancel(c, r),
    },
    {
      method: 'POST',
      path: 'qr/qr-mpm-refund',
      serviceCode: SERVICE.qrisRefund,
      name: 'qr-mpm-refund',
      writes: true,
      run: (c, r) => qris.refund(c, r),
    },
    {
      method: 'POST',
      path: 'transfer-va/create-va',
      serviceCode: SERVICE.vaCreate,
      name: 'create-va',
      writes: true,
      createsFirst: true,
      run: (c, r) => va.create(c, r),
    },
    {
      method: 'POST',
      path: 'transfer-va/inquiry-va',
      serviceCode: SERVICE.vaInquiry,
      name: 'inquiry-va',
      writes: false,
      run: (c) => va.inquiry(c),
    },
    {
      method: 'POST',
      path: 'transfer-va/status',
      serviceCode: SERVICE.vaInquiryStatus,
      name: 'va-status',
      writes: false,
      run: (c) => va.status(c),
    },
    {
      method: 'PUT',
      path: 'transfer-va/update-va',
      serviceCode: SERVICE.vaUpdate,
      name: 'update-va',
      writes: true,
      run: (c, r) => va.update(c, r),
    },
    {
      method: 'DELETE',
      path: 'transfer-va/delete-va',
      serviceCode: SERVICE.vaDelete,
      name: 'delete-va',
      writes: true,
      run: (c, r) => va.remove(c, r),
    },
    {
      method: 'POST',
      path: 'account-inquiry-external',
      serviceCode: SERVICE.accountInquiryExternal,
      name: 'account-inquiry-external',
      writes: false,
      run: (c) => transfers.inquire(c),
    },
    {
      method: 'POST',
      path: 'transfer-interbank',
      serviceCode: SERVICE.transferInterbank,
      name: 'transfer-interbank',
      writes: true,
      run: (c, r) => transfers.transfer(c, r),
    },
    {
      method: 'POST',
      path: 'transfer/status',
      serviceCode: SERVICE.transferStatus,
      name: 'transfer-status',
      writes: false,
      run: (c) => transfers.status(c),
    },
  ];

  for (const op of operations) {
    for (const { method, url } of mountsOf(deps.mounts, op)) {
      app.route({
        method,
        url,
        config: { api: 'snap', serviceCode: op.serviceCode, operation: op.name },
        preHandler: guard,
        handler: async (request: FastifyRequest, reply: FastifyReply) => {
          const ctx = merchantRequestOf(request);
          const r = await withIdempotency(store, ctx, (recordFor) => op.run(ctx, recordFor), {
            writes: op.writes,
            createsFirst: op.createsFirst === true,
          });
          return reply.code(r.httpStatus).type('application/json').send(r.body);
        },
      });
    }
  }
}

/** The OpenAPI path items of these routes (http/openapi/snap-document.ts assembles them). */
export function paymentPaths(): Record<string, PathItem> {
  return snapPaths([...qrisOperations(), ...vaOperations(), ...transferOperations()]);
}

/** What a merchant's disbursement calls can be refused with besides a signed call's refusals. */
const DISBURSING: SnapCase[] = [...MERCHANT, 'FEATURE_NOT_ALLOWED'];

function transferOperations(): SnapOperation[] {
  const transfer = {
    referenceNo: 'PO7F3C9A1E2B4D4C6F8A0B1C2D3E4F5A6B',
    partnerReferenceNo: 'PAY-SUPPLIER-88',
    amount: { value: '1500000.00', currency: 'IDR' },
    beneficiaryAccountNo: '1234567890',
    beneficiaryBankCode: '014',
    transactionDate: NOW,
  };
  return [
    {
      method: 'post',
      path: `${BASE}/account-inquiry-external`,
      operationId: 'accountInquiryExternal',
      tag: TAG.transfers,
      summary: 'Who holds a bank account',
      description:
        'Asks the payout bank who holds an account (its service 15 when the account is at the payout bank itself, else 16). A refusal of the bank comes back as its HTTP status and case under service 16.',
      serviceCode: SERVICE.accountInquiryExternal,
      security: merchantSecurity,
      parameters: SIGNED_HEADERS,
      request: 'AccountInquiryExternalRequest',
      requestExample: { beneficiaryBankCode: '014', beneficiaryAccountNo: '1234567890' },
      response: 'AccountInquiryExternalResponse',
      responseExample: {
        beneficiaryAccountName: 'SANDBOX 7890',
        beneficiaryAccountNo: '1234567890',
        beneficiaryBankCode: '014',
        currency: 'IDR',
      },
      cases: [...DISBURSING, 'INVALID_ACCOUNT', ...UPSTREAM],
    },
    {
      method: 'post',
      path: `${BASE}/transfer-interbank`,
      operationId: 'transferInterbank',
      tag: TAG.transfers,
      summary: 'Send money to a bank account (disbursement)',
      description:
        'Takes the amount and the merchant’s disbursement fee out of its pending balance, within its daily limit, and sends the amount through the payout bank (its service 17 when the account is there, else 18). 200: paid. 202: the bank has not finished; the transfer’s status (36) and a callback to `transferCallbackUrl` tell the end. A refusal of the bank comes back as its HTTP status and case under service 18, the amount and fee returned.',
      serviceCode: SERVICE.transferInterbank,
      security: merchantSecurity,
      parameters: SIGNED_HEADERS,
      request: 'TransferInterbankRequest',
      requestExample: {
        partnerReferenceNo: 'PAY-SUPPLIER-88',
        amount: { value: '1500000.00', currency: 'IDR' },
        beneficiaryAccountName: 'CV Sumber Rejeki',
        beneficiaryAccountNo: '1234567890',
        beneficiaryBankCode: '014',
        transactionDate: NOW,
      },
      response: 'TransferInterbankResponse',
      responseExample: transfer,
      alsoAnswers: {
        '202': {
          description: 'Accepted, not finished: `2021800` Request In Progress. Ask its status (36).',
          content: json(ref('TransferInterbankResponse'), {
            example: { value: { responseCode: '2021800', responseMessage: 'Request In Progress', ...transfer } },
          }),
        },
      },
      cases: [
        ...DISBURSING,
        'EXCEEDS_AMOUNT_LIMIT',
        'INSUFFICIENT_FUNDS',
        'INVALID_ACCOUNT',
        'DUPLICATE_PARTNER_REFERENCE_NO',
        'EXTERNAL_SERVER_ERROR',
      ],
    },
    {
      method: 'post',
      path: `${BASE}/transfer/status`,
      operationId: 'transferStatus',
      tag: TAG.transfers,
      summary: 'Where a disbursement stands',
      description:
        'By the merchant’s `originalPartnerReferenceNo` (and snapgate’s `originalReferenceNo`, when given). One still on its way is asked about at the bank first.',
      serviceCode: SERVICE.transferStatus,
      security: merchantSecurity,
      parameters: SIGNED_HEADERS,
      request: 'TransferStatusRequest',
      requestExample: { originalPartnerReferenceNo: 'PAY-SUPPLIER-88', serviceCode: '18' },
      response: 'TransferStatusResponse',
      responseExample: {
        originalReferenceNo: transfer.referenceNo,
        originalPartnerReferenceNo: transfer.partnerReferenceNo,
        serviceCode: '18',
        amount: transfer.amount,
        beneficiaryAccountNo: transfer.beneficiaryAccountNo,
        beneficiaryBankCode: transfer.beneficiaryBankCode,
        transactionDate: NOW,
        referenceNumber: 'SB1A2B3C4D5E6F',
        latestTransactionStatus: '00',
        transactionStatusDesc: 'Success',
      },
      cases: [...DISBURSING, 'TRANSACTION_NOT_FOUND'],
    },
  ];
}

const PAID_QRIS = { originalReferenceNo: '260115123456789012', originalPartnerReferenceNo: 'ORDER-1001' };

function qrisOperations(): SnapOperation[] {
  return [
    {
      method: 'post',
      path: `${BASE}/qr/qr-mpm-generate`,
      operationId: 'qrMpmGenerate',
      tag: TAG.qris,
      summary: 'Generate a dynamic QRIS',
      description:
        'Creates an Initiated (01) QRIS for an amount and answers its QR payload. A merchant whose acquirer issues its QRIS gets the acquirer’s payload.',
      serviceCode: SERVICE.qrisGenerate,
      security: merchantSecurity,
      parameters: SIGNED_HEADERS,
      request: 'QrMpmGenerateRequest',
      requestExample: {
        partnerReferenceNo: 'ORDER-1001',
        amount: { value: '25000.00', currency: 'IDR' },
        validityPeriod: LATER,
      },
      response: 'QrMpmGenerateResponse',
      responseExample: {
        referenceNo: '260115123456789012',
        partnerReferenceNo: 'ORDER-1001',
        qrContent: '00020101021226…6304ABCD',
        qrUrl: 'https://pay.example/pay/3q2-7wEGZ0mJ1y5b_8kQxA/qr.png',
        merchantName: 'Warung Kopi',
        additionalInfo: { validityPeriod: LATER, checkoutUrl: 'https://pay.example/pay/3q2-7wEGZ0mJ1y5b_8kQxA' },
      },
      cases: [...MERCHANT, 'DUPLICATE_PARTNER_REFERENCE_NO', ...UPSTREAM],
    },
    {
      method: 'post',
      path: `${BASE}/qr/qr-mpm-query`,
      operationId: 'qrMpmQuery',
      tag: TAG.qris,
      summary: 'Query a QRIS',
      description: 'The QRIS’s current status; an unpaid QRIS past its validity is Failed (06) `Expired`.',
      serviceCode: SERVICE.qrisQuery,
      security: merchantSecurity,
      parameters: SIGNED_HEADERS,
      request: 'QrMpmQueryRequest',
      requestExample: { originalReferenceNo: '260115123456789012', serviceCode: '47' },
      response: 'QrMpmQueryResponse',
      responseExample: {
        ...PAID_QRIS,
        serviceCode: '47',
        latestTransactionStatus: '00',
        transactionStatusDesc: 'Success',
        amount: { value: '25000.00', currency: 'IDR' },
        paidTime: NOW,
        feeAmount: { value: '0.00', currency: 'IDR' },
        additionalInfo: {
          payerName: 'ANI',
          payerIssuer: '93600009',
          payerRefId: '123456789012',
          billNumber: 100000000001,
        },
      },
      cases: [...MERCHANT, 'TRANSACTION_NOT_FOUND'],
    },
    {
      method: 'post',
      path: `${BASE}/qr/qr-mpm-cancel`,
      operationId: 'qrMpmCancel',
      tag: TAG.qris,
      summary: 'Cancel a QRIS',
      description: 'Initiated (01) → Canceled (05); the merchant is notified.',
      serviceCode: SERVICE.qrisCancel,
      security: merchantSecurity,
      parameters: SIGNED_HEADERS,
      request: 'QrMpmCancelRequest',
      requestExample: { originalPartnerReferenceNo: 'ORDER-1001', reason: 'customer left' },
      response: 'QrMpmCancelResponse',
      responseExample: { ...PAID_QRIS, cancelTime: NOW, transactionDate: NOW },
      cases: [...MERCHANT, 'TRANSACTION_NOT_FOUND', 'NOT_ALLOWED', ...UPSTREAM],
    },
    {
      method: 'post',
      path: `${BASE}/qr/qr-mpm-refund`,
      operationId: 'qrMpmRefund',
      tag: TAG.qris,
      summary: 'Refund a paid QRIS',
      description: 'Refunds part or all of a paid (00) QRIS; the whole amount back makes it Refunded (04).',
      serviceCode: SERVICE.qrisRefund,
      security: merchantSecurity,
      parameters: SIGNED_HEADERS,
      request: 'QrMpmRefundRequest',
      requestExample: {
        originalPartnerReferenceNo: 'ORDER-1001',
        partnerRefundNo: 'REFUND-1',
        refundAmount: { value: '5000.00', currency: 'IDR' },
        reason: 'one item out of stock',
      },
      response: 'QrMpmRefundResponse',
      responseExample: {
        ...PAID_QRIS,
        refundNo: 'RF1234567801234567',
        partnerRefundNo: 'REFUND-1',
        refundAmount: { value: '5000.00', currency: 'IDR' },
        refundTime: NOW,
      },
      cases: [...MERCHANT, 'TRANSACTION_NOT_FOUND', 'NOT_ALLOWED', 'INVALID_AMOUNT', ...UPSTREAM],
    },
  ];
}

function vaOperations(): SnapOperation[] {
  const lookup = { virtualAccountNo: VA_NUMBERS_EXAMPLE.virtualAccountNo, trxId: 'INV-2026-0001' };
  return [
    {
      method: 'post',
      path: `${BASE}/transfer-va/create-va`,
      operationId: 'createVa',
      tag: TAG.va,
      summary: 'Create a Virtual Account',
      description: 'Allocates a VA number at the bank of `additionalInfo.bankCode` and opens an Initiated (01) bill.',
      serviceCode: SERVICE.vaCreate,
      security: merchantSecurity,
      parameters: SIGNED_HEADERS,
      request: 'CreateVaRequest',
      requestExample: {
        virtualAccountName: 'Budi Santoso',
        trxId: 'INV-2026-0001',
        totalAmount: { value: '150000.00', currency: 'IDR' },
        expiredDate: '2026-01-16T10:30:00+07:00',
      },
      response: 'CreateVaResponse',
      responseExample: { responseMessage: 'Success', virtualAccountData: VA_DATA_EXAMPLE },
      cases: [...MERCHANT, 'DUPLICATE_PARTNER_REFERENCE_NO'],
    },
    {
      method: 'post',
      path: `${BASE}/transfer-va/inquiry-va`,
      operationId: 'inquiryVa',
      tag: TAG.va,
      summary: 'Look up a Virtual Account',
      description: 'The VA as created (or last updated), and its status.',
      serviceCode: SERVICE.vaInquiry,
      security: merchantSecurity,
      parameters: SIGNED_HEADERS,
      request: 'VaLookupRequest',
      requestExample: lookup,
      response: 'InquiryVaResponse',
      responseExample: { virtualAccountData: { ...VA_DATA_EXAMPLE, latestTransactionStatus: '01' } },
      cases: [...MERCHANT, 'INVALID_BILL'],
    },
    {
      method: 'post',
      path: `${BASE}/transfer-va/status`,
      operationId: 'vaStatus',
      tag: TAG.va,
      summary: 'Payment status of a Virtual Account',
      description: 'Whether the VA is paid, and how much.',
      serviceCode: SERVICE.vaInquiryStatus,
      security: merchantSecurity,
      parameters: SIGNED_HEADERS,
      request: 'VaLookupRequest',
      requestExample: { virtualAccountNo: VA_NUMBERS_EXAMPLE.virtualAccountNo },
      response: 'VaStatusResponse',
      responseExample: {
        virtualAccountData: {
          ...VA_NUMBERS_EXAMPLE,
          trxId: 'INV-2026-0001',
          paymentFlagStatus: '00',
          paymentFlagReason: { english: 'Success', indonesia: 'Sukses' },
          paidAmount: { value: '150000.00', currency: 'IDR' },
          totalAmount: { value: '150000.00', currency: 'IDR' },
          transactionDate: NOW,
          latestTransactionStatus: '00',
          transactionStatusDesc: 'Success',
        },
      },
      cases: [...MERCHANT, 'INVALID_BILL'],
    },
    {
      method: 'put',
      path: `${BASE}/transfer-va/update-va`,
      operationId: 'updateVa',
      tag: TAG.va,
      summary: 'Update a Virtual Account',
      description: 'Changes the name, amount or expiry of an Initiated (01) VA.',
      serviceCode: SERVICE.vaUpdate,
      security: merchantSecurity,
      parameters: SIGNED_HEADERS,
      request: 'UpdateVaRequest',
      requestExample: {
        virtualAccountNo: VA_NUMBERS_EXAMPLE.virtualAccountNo,
        totalAmount: { value: '175000.00', currency: 'IDR' },
      },
      response: 'UpdateVaResponse',
      responseExample: {
        virtualAccountData: { ...VA_DATA_EXAMPLE, totalAmount: { value: '175000.00', currency: 'IDR' } },
      },
      cases: [...MERCHANT, 'INVALID_BILL', 'NOT_ALLOWED'],
    },
    {
      method: 'delete',
      path: `${BASE}/transfer-va/delete-va`,
      operationId: 'deleteVa',
      tag: TAG.va,
      summary: 'Delete a Virtual Account',
      description: 'Initiated (01) → Canceled (05) `Deleted`; the merchant is notified. The request has a JSON body.',
      serviceCode: SERVICE.vaDelete,
      security: merchantSecurity,
      parameters: SIGNED_HEADERS,
      request: 'VaDeleteRequest',
      requestExample: lookup,
      response: 'DeleteVaResponse',
      responseExample: { virtualAccountData: { ...VA_NUMBERS_EXAMPLE, trxId: 'INV-2026-0001', additionalInfo: {} } },
      cases: [...MERCHANT, 'INVALID_BILL', 'NOT_ALLOWED'],
    },
  ];
}

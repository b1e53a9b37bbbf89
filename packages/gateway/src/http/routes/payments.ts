import { SERVICE, type SnapCase } from '@snapgate/snap';
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import type { Clock } from '../../clock.ts';
import type { BindingService } from '../../payments/binding-service.ts';
import type { EwalletService } from '../../payments/ewallet-service.ts';
import { withIdempotency } from '../../payments/idempotency.ts';
import type { QrisService } from '../../payments/qris-service.ts';
import type { VaService } from '../../payments/va-service.ts';
import type { DisbursementService } from '../../payouts/disbursement-service.ts';
import { CANONICAL_SNAP_PREFIX as BASE, mountsOf, type SnapMounts } from '../../snap-mounts.ts';
import type { Store } from '../../store/store.ts';
import type { TokenService } from '../../tokens/token-service.ts';
import { type HttpMethod, json, ref } from '../openapi/kit.ts';
import type { RouteDocs } from '../openapi/route-docs.ts';
import {
  LATER,
  MERCHANT,
  merchantSecurity,
  NOW,
  SIGNED_HEADERS,
  snapOperation,
  TAG,
  UPSTREAM,
  VA_DATA_EXAMPLE,
  VA_NUMBERS_EXAMPLE,
} from '../openapi/snap-kit.ts';
import { merchantRequestOf, snapGuard } from '../snap-auth.ts';
import { bindingOperations } from './binding-operations.ts';
import { debitOperations } from './debit-operations.ts';
import type { PaymentOperation as Operation } from './payment-operation.ts';

export function paymentRoutes(
  app: FastifyInstance,
  deps: {
    store: Store;
    tokens: TokenService;
    clock: Clock;
    qris: QrisService;
    va: VaService;
    ewallet: EwalletService;
    bindings: BindingService;
    transfers: DisbursementService;
    mounts: SnapMounts;
    docs: RouteDocs;
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
      doc: {
        operationId: 'qrMpmGenerate',
        tag: TAG.qris,
        summary: 'Generate a dynamic QRIS',
        description:
          'Creates an Initiated (01) QRIS for an amount and answers its QR payload. A merchant whose acquirer issues its QRIS gets the acquirer’s payload.',
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
    },
    {
      method: 'POST',
      path: 'qr/qr-mpm-query',
      serviceCode: SERVICE.qrisQuery,
      name: 'qr-mpm-query',
      writes: false,
      run: (c) => qris.query(c),
      doc: {
        operationId: 'qrMpmQuery',
        tag: TAG.qris,
        summary: 'Query a QRIS',
        description: 'The QRIS’s current status; an unpaid QRIS past its validity is Failed (06) `Expired`.',
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
    },
    {
      method: 'POST',
      path: 'qr/qr-mpm-cancel',
      serviceCode: SERVICE.qrisCancel,
      name: 'qr-mpm-cancel',
      writes: true,
      run: (c, r) => qris.cancel(c, r),
      doc: {
        operationId: 'qrMpmCancel',
        tag: TAG.qris,
        summary: 'Cancel a QRIS',
        description: 'Initiated (01) → Canceled (05); the merchant is notified.',
        security: merchantSecurity,
        parameters: SIGNED_HEADERS,
        request: 'QrMpmCancelRequest',
        requestExample: { originalPartnerReferenceNo: 'ORDER-1001', reason: 'customer left' },
        response: 'QrMpmCancelResponse',
        responseExample: { ...PAID_QRIS, cancelTime: NOW, transactionDate: NOW },
        cases: [...MERCHANT, 'TRANSACTION_NOT_FOUND', 'NOT_ALLOWED', ...UPSTREAM],
      },
    },
    {
      method: 'POST',
      path: 'qr/qr-mpm-refund',
      serviceCode: SERVICE.qrisRefund,
      name: 'qr-mpm-refund',
      writes: true,
      run: (c, r) => qris.refund(c, r),
      doc: {
        operationId: 'qrMpmRefund',
        tag: TAG.qris,
        summary: 'Refund a paid QRIS',
        description: 'Refunds part or all of a paid (00) QRIS; the whole amount back makes it Refunded (04).',
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
    },
    {
      method: 'POST',
      path: 'transfer-va/create-va',
      serviceCode: SERVICE.vaCreate,
      name: 'create-va',
      writes: true,
      createsFirst: true,
      run: (c, r) => va.create(c, r),
      doc: {
        operationId: 'createVa',
        tag: TAG.va,
        summary: 'Create a Virtual Account',
        description: 'Allocates a VA number at the bank of `additionalInfo.bankCode` and opens an Initiated (01) bill.',
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
    },
    {
      method: 'POST',
      path: 'transfer-va/inquiry-va',
      serviceCode: SERVICE.vaInquiry,
      name: 'inquiry-va',
      writes: false,
      run: (c) => va.inquiry(c),
      doc: {
        operationId: 'inquiryVa',
        tag: TAG.va,
        summary: 'Look up a Virtual Account',
        description: 'The VA as created (or last updated), and its status.',
        security: merchantSecurity,
        parameters: SIGNED_HEADERS,
        request: 'VaLookupRequest',
        requestExample: VA_LOOKUP_EXAMPLE,
        response: 'InquiryVaResponse',
        responseExample: { virtualAccountData: { ...VA_DATA_EXAMPLE, latestTransactionStatus: '01' } },
        cases: [...MERCHANT, 'INVALID_BILL'],
      },
    },
    {
      method: 'POST',
      path: 'transfer-va/status',
      serviceCode: SERVICE.vaInquiryStatus,
      name: 'va-status',
      writes: false,
      run: (c) => va.status(c),
      doc: {
        operationId: 'vaStatus',
        tag: TAG.va,
        summary: 'Payment status of a Virtual Account',
        description: 'Whether the VA is paid, and how much.',
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
    },
    {
      method: 'PUT',
      path: 'transfer-va/update-va',
      serviceCode: SERVICE.vaUpdate,
      name: 'update-va',
      writes: true,
      run: (c, r) => va.update(c, r),
      doc: {
        operationId: 'updateVa',
        tag: TAG.va,
        summary: 'Update a Virtual Account',
        description: 'Changes the name, amount or expiry of an Initiated (01) VA.',
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
    },
    {
      method: 'DELETE',
      path: 'transfer-va/delete-va',
      serviceCode: SERVICE.vaDelete,
      name: 'delete-va',
      writes: true,
      run: (c, r) => va.remove(c, r),
      doc: {
        operationId: 'deleteVa',
        tag: TAG.va,
        summary: 'Delete a Virtual Account',
        description: 'Initiated (01) → Canceled (05) `Deleted`; the merchant is notified. The request has a JSON body.',
        security: merchantSecurity,
        parameters: SIGNED_HEADERS,
        request: 'VaDeleteRequest',
        requestExample: VA_LOOKUP_EXAMPLE,
        response: 'DeleteVaResponse',
        responseExample: { virtualAccountData: { ...VA_NUMBERS_EXAMPLE, trxId: 'INV-2026-0001', additionalInfo: {} } },
        cases: [...MERCHANT, 'INVALID_BILL', 'NOT_ALLOWED'],
      },
    },
    {
      method: 'POST',
      path: 'account-inquiry-external',
      serviceCode: SERVICE.accountInquiryExternal,
      name: 'account-inquiry-external',
      writes: false,
      run: (c) => transfers.inquire(c),
      doc: {
        operationId: 'accountInquiryExternal',
        tag: TAG.transfers,
        summary: 'Who holds a bank account',
        description:
          'Asks the payout bank who holds an account (its service 15 when the account is at the payout bank itself, else 16). A refusal of the bank comes back as its HTTP status and case under service 16.',
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
    },
    {
      method: 'POST',
      path: 'transfer-interbank',
      serviceCode: SERVICE.transferInterbank,
      name: 'transfer-interbank',
      writes: true,
      run: (c, r) => transfers.transfer(c, r),
      doc: {
        operationId: 'transferInterbank',
        tag: TAG.transfers,
        summary: 'Send money to a bank account (disbursement)',
        description:
          'Takes the amount and the merchant’s disbursement fee out of its pending balance, within its daily limit, and sends the amount through the payout bank (its service 17 when the account is there, else 18). 200: paid. 202: the bank has not finished; the transfer’s status (36) and a callback to `transferCallbackUrl` tell the end. A refusal of the bank comes back as its HTTP status and case under service 18, the amount and fee returned.',
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
        responseExample: TRANSFER_EXAMPLE,
        alsoAnswers: {
          '202': {
            description: 'Accepted, not finished: `2021800` Request In Progress. Ask its status (36).',
            content: json(ref('TransferInterbankResponse'), {
              example: {
                value: { responseCode: '2021800', responseMessage: 'Request In Progress', ...TRANSFER_EXAMPLE },
              },
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
    },
    {
      method: 'POST',
      path: 'transfer/status',
      serviceCode: SERVICE.transferStatus,
      name: 'transfer-status',
      writes: false,
      run: (c) => transfers.status(c),
      doc: {
        operationId: 'transferStatus',
        tag: TAG.transfers,
        summary: 'Where a disbursement stands',
        description:
          'By the merchant’s `originalPartnerReferenceNo` (and snapgate’s `originalReferenceNo`, when given). One still on its way is asked about at the bank first.',
        security: merchantSecurity,
        parameters: SIGNED_HEADERS,
        request: 'TransferStatusRequest',
        requestExample: { originalPartnerReferenceNo: 'PAY-SUPPLIER-88', serviceCode: '18' },
        response: 'TransferStatusResponse',
        responseExample: {
          originalReferenceNo: TRANSFER_EXAMPLE.referenceNo,
          originalPartnerReferenceNo: TRANSFER_EXAMPLE.partnerReferenceNo,
          serviceCode: '18',
          amount: TRANSFER_EXAMPLE.amount,
          beneficiaryAccountNo: TRANSFER_EXAMPLE.beneficiaryAccountNo,
          beneficiaryBankCode: TRANSFER_EXAMPLE.beneficiaryBankCode,
          transactionDate: NOW,
          referenceNumber: 'SB1A2B3C4D5E6F',
          latestTransactionStatus: '00',
          transactionStatusDesc: 'Success',
        },
        cases: [...DISBURSING, 'TRANSACTION_NOT_FOUND'],
      },
    },
    ...debitOperations(deps.ewallet),
    ...bindingOperations(deps.bindings),
  ];

  for (const op of operations) {
    // Documented once, at its canonical path; served under each mount (snap-mounts.ts).
    deps.docs.add(
      `${BASE}/${op.path}`,
      op.method.toLowerCase() as HttpMethod,
      snapOperation({ ...op.doc, serviceCode: op.serviceCode }),
    );
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

/** A transfer as the disbursement examples show it. */
const TRANSFER_EXAMPLE = {
  referenceNo: 'PO7F3C9A1E2B4D4C6F8A0B1C2D3E4F5A6B',
  partnerReferenceNo: 'PAY-SUPPLIER-88',
  amount: { value: '1500000.00', currency: 'IDR' },
  beneficiaryAccountNo: '1234567890',
  beneficiaryBankCode: '014',
  transactionDate: NOW,
};

/** What a merchant's disbursement calls can be refused with besides a signed call's refusals. */
const DISBURSING: SnapCase[] = [...MERCHANT, 'FEATURE_NOT_ALLOWED'];

const PAID_QRIS = { originalReferenceNo: '260115123456789012', originalPartnerReferenceNo: 'ORDER-1001' };

/** A VA as the lookup examples name it. */
const VA_LOOKUP_EXAMPLE = { virtualAccountNo: VA_NUMBERS_EXAMPLE.virtualAccountNo, trxId: 'INV-2026-0001' };

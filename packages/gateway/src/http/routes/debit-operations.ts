import { SERVICE } from '@snapgate/snap';
import type { EwalletService } from '../../payments/ewallet-service.ts';
import { paramRef } from '../openapi/kit.ts';
import { LATER, MERCHANT, merchantSecurity, NOW, SIGNED_HEADERS, TAG, UPSTREAM } from '../openapi/snap-kit.ts';
import type { PaymentOperation } from './payment-operation.ts';

const PAYMENT = { originalPartnerReferenceNo: 'ORDER-2001', originalReferenceNo: '260115123456789013' };
const CHECKOUT = 'https://pay.example/pay/3q2-7wEGZ0mJ1y5b_8kQxB';

/** SNAP Direct Debit as merchants call it (docs/ewallets.md): pay, status, cancel, refund. */
export function debitOperations(ewallet: EwalletService): PaymentOperation[] {
  return [
    {
      method: 'POST',
      path: 'debit/payment-host-to-host',
      serviceCode: SERVICE.debitPay,
      name: 'debit-payment-host-to-host',
      writes: true,
      createsFirst: true,
      run: (c, r) => ewallet.pay(c, r),
      doc: {
        operationId: 'debitPaymentHostToHost',
        tag: TAG.ewallet,
        summary: 'Make an e-wallet payment',
        description:
          'Creates an Initiated (01) payment of a fixed amount in one wallet. Send the payer to `webRedirectUrl`, where the wallet asks them to authorise it (with `Authorization-Customer`, a bound account pays without it, unless the wallet asks the payer); the wallet’s answer reaches the merchant as a callback (`PAY_NOTIFY`, else `<callbackBaseUrl>/v1.0/debit/notify`). In sandbox mode the wallet `SANDBOXPAY` is a page of the gateway with Approve and Decline.',
        security: merchantSecurity,
        parameters: [...SIGNED_HEADERS, paramRef('AuthorizationCustomerOptional')],
        request: 'DebitPayRequest',
        requestExample: {
          partnerReferenceNo: PAYMENT.originalPartnerReferenceNo,
          amount: { value: '25000.00', currency: 'IDR' },
          validUpTo: LATER,
          urlParams: [{ url: 'https://shop.example/orders/2001', type: 'PAY_RETURN', isDeeplink: 'N' }],
          payOptionDetails: [
            { payMethod: 'EMONEY', payOption: 'SANDBOXPAY', transAmount: { value: '25000.00', currency: 'IDR' } },
          ],
        },
        response: 'DebitPayResponse',
        responseExample: {
          referenceNo: PAYMENT.originalReferenceNo,
          partnerReferenceNo: PAYMENT.originalPartnerReferenceNo,
          webRedirectUrl: `${CHECKOUT}/wallet`,
          additionalInfo: { checkoutUrl: CHECKOUT },
        },
        cases: [
          ...MERCHANT,
          'DUPLICATE_PARTNER_REFERENCE_NO',
          'FEATURE_NOT_ALLOWED',
          'INVALID_CUSTOMER_TOKEN',
          ...UPSTREAM,
        ],
      },
    },
    {
      method: 'POST',
      path: 'debit/status',
      serviceCode: SERVICE.debitStatus,
      name: 'debit-status',
      writes: false,
      run: (c) => ewallet.status(c),
      doc: {
        operationId: 'debitStatus',
        tag: TAG.ewallet,
        summary: 'Where an e-wallet payment stands',
        description: 'Its current status; an unpaid payment past `validUpTo` is Failed (06) `Expired`.',
        security: merchantSecurity,
        parameters: SIGNED_HEADERS,
        request: 'DebitStatusRequest',
        requestExample: { originalPartnerReferenceNo: PAYMENT.originalPartnerReferenceNo, serviceCode: '54' },
        response: 'DebitStatusResponse',
        responseExample: {
          originalReferenceNo: PAYMENT.originalReferenceNo,
          originalPartnerReferenceNo: PAYMENT.originalPartnerReferenceNo,
          serviceCode: '54',
          latestTransactionStatus: '00',
          transactionStatusDesc: 'Success',
          amount: { value: '25000.00', currency: 'IDR' },
          paidTime: NOW,
          feeAmount: { value: '375.00', currency: 'IDR' },
          additionalInfo: { payOption: 'SANDBOXPAY', payerName: 'SANDBOX PAYER', walletReferenceNo: 'SBW1A2B3C4D5E6' },
        },
        cases: [...MERCHANT, 'TRANSACTION_NOT_FOUND'],
      },
    },
    {
      method: 'POST',
      path: 'debit/cancel',
      serviceCode: SERVICE.debitCancel,
      name: 'debit-cancel',
      writes: true,
      run: (c, r) => ewallet.cancel(c, r),
      doc: {
        operationId: 'debitCancel',
        tag: TAG.ewallet,
        summary: 'Cancel an unpaid e-wallet payment',
        description: 'Initiated (01) → Canceled (05); the merchant is notified. A paid one is refunded instead.',
        security: merchantSecurity,
        parameters: SIGNED_HEADERS,
        request: 'DebitCancelRequest',
        requestExample: { originalPartnerReferenceNo: PAYMENT.originalPartnerReferenceNo, reason: 'customer left' },
        response: 'DebitCancelResponse',
        responseExample: { ...PAYMENT, cancelTime: NOW, transactionDate: NOW },
        cases: [...MERCHANT, 'TRANSACTION_NOT_FOUND', 'NOT_ALLOWED', ...UPSTREAM],
      },
    },
    {
      method: 'POST',
      path: 'debit/refund',
      serviceCode: SERVICE.debitRefund,
      name: 'debit-refund',
      writes: true,
      run: (c, r) => ewallet.refund(c, r),
      doc: {
        operationId: 'debitRefund',
        tag: TAG.ewallet,
        summary: 'Refund a paid e-wallet payment',
        description: 'Refunds part or all of a paid (00) payment; the whole amount back makes it Refunded (04).',
        security: merchantSecurity,
        parameters: SIGNED_HEADERS,
        request: 'DebitRefundRequest',
        requestExample: {
          originalPartnerReferenceNo: PAYMENT.originalPartnerReferenceNo,
          partnerRefundNo: 'REFUND-2001-1',
          refundAmount: { value: '5000.00', currency: 'IDR' },
          reason: 'one item out of stock',
        },
        response: 'DebitRefundResponse',
        responseExample: {
          ...PAYMENT,
          refundNo: 'RF1234567801234568',
          partnerRefundNo: 'REFUND-2001-1',
          refundAmount: { value: '5000.00', currency: 'IDR' },
          refundTime: NOW,
        },
        cases: [...MERCHANT, 'TRANSACTION_NOT_FOUND', 'NOT_ALLOWED', 'INVALID_AMOUNT', ...UPSTREAM],
      },
    },
  ];
}

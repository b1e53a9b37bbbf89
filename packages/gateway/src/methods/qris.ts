import type { PaymentMethod } from './method.ts';

/** QRIS (MPM): a QR the payer scans; issued here or by an upstream acquirer. */
export const qris: PaymentMethod<'qris'> = {
  kind: 'qris',
  label: { short: 'QRIS', long: 'QRIS' },
  callback: { path: '/webhook/payment-qr-notification', urlSetting: 'qrisCallbackUrl', ackCodes: ['2002600'] },
  ownCallbackUrl: () => undefined,
  provider: { kind: 'acquirer', sandboxName: 'sandbox acquirer' },
  isNotified: () => true,
  notifiedAmount: (t) => t.amount ?? '0.00',
  feeSnapshot(merchant) {
    // Bank Indonesia's MDR by the merchant's criteria, unless the merchant has its own rate.
    const rule = merchant.fees?.qris;
    if (rule === undefined || 'rule' in rule) return { rule: 'bi-mdr', criteria: merchant.qrisCriteria };
    return { percent: rule.percent, fixed: rule.fixed ?? '0.00' };
  },
  upstreamOf: (t) => t.details.upstream,
  payBy: (t) => t.details.upstream?.validUntil ?? t.expiresAt,
  refundable: true,
  reachable: () => true,
  cancelled: 'cancelled',
  sandboxVerbs: ['pay', 'pend', 'fail'],
  named: (t) => `QRIS ${t.referenceNo}`,
  facts: (t) => [['Acquirer reference', t.details.acquirerReferenceNo ?? t.details.upstream?.referenceNo]],
};

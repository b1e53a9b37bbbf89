import type { PaymentMethod } from './method.ts';

/** A Virtual Account: a number the payer transfers to at its bank; told to the merchant only when paid. */
export const va: PaymentMethod<'va'> = {
  kind: 'va',
  label: { short: 'VA', long: 'Virtual account' },
  callback: { path: '/webhook/payment-va-notification', urlSetting: 'vaCallbackUrl', ackCodes: ['2002600'] },
  ownCallbackUrl: () => undefined,
  provider: { kind: 'bank', sandboxName: 'sandbox bank' },
  isNotified: (to) => to === '00',
  // An open VA has no amount of its own: what was paid.
  notifiedAmount: (t) => t.paidAmount ?? t.amount ?? '0.00',
  feeSnapshot(merchant) {
    const rule = merchant.fees?.va;
    return { percent: rule?.percent ?? '0.00', fixed: rule?.fixed ?? '0.00' };
  },
  upstreamOf: () => undefined,
  payBy: (t) => t.expiresAt,
  refundable: false,
  reachable: (t) => t.virtualAccountNo !== null,
  cancelled: 'deleted',
  sandboxVerbs: ['pay'],
  named: (t) => `The VA ${(t.virtualAccountNo ?? '').trim()} (${t.referenceNo})`,
  facts: (t) => [
    ['VA number', t.virtualAccountNo],
    ['Bank code', t.details.bankCode],
    ['Bank reference', t.details.bankReferenceNo],
  ],
};

import type { PaymentMethod } from './method.ts';

/** The default e-wallet fee (docs/books.md#fees): 1.50 % of the amount. */
export const EWALLET_DEFAULT_FEE = { percent: '1.50', fixed: '0.00' } as const;

/**
 * An e-wallet payment over SNAP Direct Debit (docs/ewallets.md): the payer authorises a fixed
 * amount on the wallet's page or app, and the wallet tells snapgate at its notify door.
 */
export const ewallet: PaymentMethod<'ewallet'> = {
  kind: 'ewallet',
  label: { short: 'E-wallet', long: 'E-wallet payment' },
  // No merchant-wide URL setting: a payment's own `PAY_NOTIFY` url, else this path.
  // SNAP's debit notify is acknowledged with its own code; the callback's 2002600 too.
  callback: { path: '/v1.0/debit/notify', ackCodes: ['2005600', '2002600'] },
  ownCallbackUrl: (t) => t.details.notifyUrl,
  provider: { kind: 'ewallet', sandboxName: 'sandbox wallet' },
  // Every change but the first is told: paid, declined, cancelled, expired, refunded.
  isNotified: (to) => to !== '01',
  notifiedAmount: (t) => t.amount ?? '0.00',
  feeSnapshot(merchant) {
    const rule = merchant.fees?.ewallet;
    return rule ? { percent: rule.percent, fixed: rule.fixed ?? '0.00' } : { ...EWALLET_DEFAULT_FEE };
  },
  upstreamOf: (t) => t.details.upstream,
  payBy: (t) => t.details.upstream?.validUntil ?? t.expiresAt,
  refundable: true,
  reachable: () => true,
  cancelled: 'cancelled',
  sandboxVerbs: ['pay', 'fail'],
  named: (t) => `The ${t.details.payOption} payment ${t.referenceNo}`,
  facts: (t) => [
    ['Wallet', t.details.payOption],
    ['Wallet reference', t.details.walletReferenceNo ?? t.details.upstream?.referenceNo],
    ['Account binding', t.details.bindingId],
    ['Wallet page', t.details.webRedirectUrl || undefined],
  ],
};

// QRIS refund (service 78): POST /api/snap/v1.0/qr/qr-mpm-refund.
// A successful refund needs a paid QRIS, which a conformance run cannot make on an arbitrary server:
// these rows check the refusals only (the QRIS of this run is canceled by then).
import type { ConformanceContext, Scenario } from '../types.ts';
import { authNegatives, idr, MALFORMED, MISSING, NOT_ALLOWED } from './common.ts';

const refund = (ctx: ConformanceContext) => ({
  originalPartnerReferenceNo: ctx.need('qrisPartnerReferenceNo'),
  originalReferenceNo: ctx.need('qrisReferenceNo'),
  partnerRefundNo: `CF${ctx.run}R1`,
  refundAmount: idr('1000.00'),
  reason: 'conformance check',
});

export const qrisRefundScenarios: Scenario[] = [
  ...authNegatives('qris-refund', refund),
  {
    id: 'qris-refund-not-paid',
    title: 'refunding a QRIS that was never paid is refused as not allowed (405, or another 4xx)',
    kind: 'negative',
    request: (ctx) => ({ body: refund(ctx) }),
    expect: NOT_ALLOWED,
  },
  {
    id: 'qris-refund-unknown',
    title: 'refunding an unknown reference is Transaction Not Found (4047801)',
    kind: 'negative',
    request: (ctx) => ({
      body: {
        originalPartnerReferenceNo: `CF${ctx.run}NOPE`,
        partnerRefundNo: `CF${ctx.run}R2`,
        refundAmount: idr('1000.00'),
      },
    }),
    expect: { status: 404, cases: ['01'] },
  },
  {
    id: 'qris-refund-missing-original',
    title: 'a missing originalPartnerReferenceNo is a missing mandatory field (4007802)',
    kind: 'negative',
    request: (ctx) => ({ body: { partnerRefundNo: `CF${ctx.run}R3`, refundAmount: idr('1000.00') } }),
    expect: MISSING,
  },
  {
    id: 'qris-refund-missing-refund-no',
    title: 'a missing partnerRefundNo is a missing mandatory field (4007802)',
    kind: 'negative',
    request: (ctx) => {
      const { partnerRefundNo: _omit, ...body } = refund(ctx);
      return { body };
    },
    expect: MISSING,
  },
  {
    id: 'qris-refund-missing-amount',
    title: 'a missing refundAmount is a missing mandatory field (4007802)',
    kind: 'negative',
    request: (ctx) => {
      const { refundAmount: _omit, ...body } = refund(ctx);
      return { body };
    },
    expect: MISSING,
  },
  {
    id: 'qris-refund-amount-malformed',
    title: 'a refundAmount.value without two fraction digits is an invalid field format (4007801)',
    kind: 'negative',
    request: (ctx) => ({ body: { ...refund(ctx), refundAmount: idr('1000') } }),
    expect: MALFORMED,
  },
];

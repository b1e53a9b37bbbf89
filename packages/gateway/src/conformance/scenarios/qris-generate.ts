// QRIS generate (service 47): POST /api/snap/v1.0/qr/qr-mpm-generate.
import type { ConformanceContext, Scenario } from '../types.ts';
import {
  authNegatives,
  conflictRow,
  idr,
  longText,
  MALFORMED,
  MISSING,
  nonEmptyStrings,
  OK,
  replayRow,
} from './common.ts';

/** The order reference of the QRIS this run generates (queried, then canceled, by later files). */
export const qrisPartnerReference = (ctx: ConformanceContext) => `CF${ctx.run}Q1`;
const valid = (ctx: ConformanceContext) => ({ partnerReferenceNo: qrisPartnerReference(ctx), amount: idr('10000.00') });
const other = (ctx: ConformanceContext) => ({ partnerReferenceNo: `CF${ctx.run}Q2`, amount: idr('10000.00') });

export const qrisGenerateScenarios: Scenario[] = [
  ...authNegatives('qris-generate', other),
  {
    id: 'qris-generate-ok',
    title: 'a dynamic QRIS is generated (2004700), partnerReferenceNo echoed',
    kind: 'positive',
    request: (ctx) => ({ body: valid(ctx) }),
    expect: {
      ...OK,
      echo: (ctx) => ({ partnerReferenceNo: qrisPartnerReference(ctx) }),
      check: nonEmptyStrings('referenceNo', 'qrContent'),
      save: (body, ctx) => {
        ctx.values.qrisReferenceNo = String(body.referenceNo);
        ctx.values.qrisPartnerReferenceNo = qrisPartnerReference(ctx);
      },
    },
  },
  replayRow('qris-generate', 'qris-generate-ok'),
  conflictRow('qris-generate', 'qris-generate-ok', other),
  {
    id: 'qris-generate-duplicate-reference',
    title: 'a partnerReferenceNo used before is refused as a duplicate (409)',
    kind: 'negative',
    request: (ctx) => ({ body: { partnerReferenceNo: ctx.need('qrisPartnerReferenceNo'), amount: idr('20000.00') } }),
    expect: { status: 409 },
  },
  {
    id: 'qris-generate-missing-reference',
    title: 'a missing partnerReferenceNo is a missing mandatory field (4004702)',
    kind: 'negative',
    request: () => ({ body: { amount: idr('10000.00') } }),
    expect: MISSING,
  },
  {
    id: 'qris-generate-missing-amount',
    title: 'a missing amount is a missing mandatory field (4004702)',
    kind: 'negative',
    request: (ctx) => ({ body: { partnerReferenceNo: `CF${ctx.run}Q3` } }),
    expect: MISSING,
  },
  {
    id: 'qris-generate-amount-number',
    title: 'amount.value as a JSON number is an invalid field format (4004701)',
    kind: 'negative',
    request: (ctx) => ({ body: { partnerReferenceNo: `CF${ctx.run}Q4`, amount: { value: 10000, currency: 'IDR' } } }),
    expect: MALFORMED,
  },
  {
    id: 'qris-generate-amount-one-decimal',
    title: 'amount.value without two fraction digits is an invalid field format (4004701)',
    kind: 'negative',
    request: (ctx) => ({ body: { partnerReferenceNo: `CF${ctx.run}Q5`, amount: idr('10000.5') } }),
    expect: MALFORMED,
  },
  {
    id: 'qris-generate-reference-too-long',
    title: 'a partnerReferenceNo over 64 characters is an invalid field format (4004701)',
    kind: 'negative',
    request: () => ({ body: { partnerReferenceNo: longText(65), amount: idr('10000.00') } }),
    expect: MALFORMED,
  },
  {
    id: 'qris-generate-reference-not-string',
    title: 'a partnerReferenceNo that is not a string is an invalid field format (4004701)',
    kind: 'negative',
    request: () => ({ body: { partnerReferenceNo: { nested: true }, amount: idr('10000.00') } }),
    expect: MALFORMED,
  },
];

// QRIS query (service 51): POST /api/snap/v1.0/qr/qr-mpm-query.
import type { ConformanceContext, Scenario } from '../types.ts';
import { all, authNegatives, conflictRow, longText, MALFORMED, MISSING, OK, replayRow } from './common.ts';

const byReference = (ctx: ConformanceContext) => ({
  originalReferenceNo: ctx.need('qrisReferenceNo'),
  originalPartnerReferenceNo: ctx.need('qrisPartnerReferenceNo'),
  serviceCode: '47',
});
const echoes = (ctx: ConformanceContext) => ({
  originalReferenceNo: ctx.need('qrisReferenceNo'),
  originalPartnerReferenceNo: ctx.need('qrisPartnerReferenceNo'),
});
const statusCheck = all((body) =>
  typeof body.latestTransactionStatus === 'string' && /^0[0-6]$/.test(body.latestTransactionStatus)
    ? undefined
    : `latestTransactionStatus should be a status "00" to "06", got ${JSON.stringify(body.latestTransactionStatus)}`,
);

export const qrisQueryScenarios: Scenario[] = [
  ...authNegatives('qris-query', byReference),
  {
    id: 'qris-query-ok',
    title: 'the generated QRIS is found by both references (2005100), references echoed',
    kind: 'positive',
    request: (ctx) => ({ body: byReference(ctx) }),
    expect: { ...OK, echo: echoes, check: statusCheck },
  },
  {
    id: 'qris-query-by-partner-reference',
    title: 'the generated QRIS is found by originalPartnerReferenceNo alone (2005100)',
    kind: 'positive',
    request: (ctx) => ({ body: { originalPartnerReferenceNo: ctx.need('qrisPartnerReferenceNo'), serviceCode: '47' } }),
    expect: { ...OK, echo: echoes, check: statusCheck },
  },
  replayRow('qris-query', 'qris-query-ok'),
  conflictRow('qris-query', 'qris-query-ok', (ctx) => ({
    originalPartnerReferenceNo: ctx.need('qrisPartnerReferenceNo'),
    serviceCode: '47',
  })),
  {
    id: 'qris-query-unknown',
    title: 'an unknown reference is Transaction Not Found (4045101)',
    kind: 'negative',
    request: (ctx) => ({ body: { originalPartnerReferenceNo: `CF${ctx.run}NOPE`, serviceCode: '47' } }),
    expect: { status: 404, cases: ['01'] },
  },
  {
    id: 'qris-query-missing-service-code',
    title: 'a missing serviceCode is a missing mandatory field (4005102)',
    kind: 'negative',
    request: (ctx) => ({ body: { originalReferenceNo: ctx.need('qrisReferenceNo') } }),
    expect: MISSING,
  },
  {
    id: 'qris-query-no-reference',
    title: 'neither originalReferenceNo nor originalPartnerReferenceNo is a missing mandatory field (4005102)',
    kind: 'negative',
    request: () => ({ body: { serviceCode: '47' } }),
    expect: MISSING,
  },
  {
    id: 'qris-query-reference-too-long',
    title: 'an originalPartnerReferenceNo over 64 characters is an invalid field format (4005101)',
    kind: 'negative',
    request: () => ({ body: { originalPartnerReferenceNo: longText(65), serviceCode: '47' } }),
    expect: MALFORMED,
  },
];

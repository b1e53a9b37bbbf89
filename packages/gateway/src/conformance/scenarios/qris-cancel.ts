// QRIS cancel (service 77): POST /api/snap/v1.0/qr/qr-mpm-cancel.
import type { ConformanceContext, Scenario } from '../types.ts';
import { authNegatives, conflictRow, longText, MALFORMED, MISSING, NOT_ALLOWED, OK, replayRow } from './common.ts';

const cancel = (ctx: ConformanceContext) => ({
  originalReferenceNo: ctx.need('qrisReferenceNo'),
  originalPartnerReferenceNo: ctx.need('qrisPartnerReferenceNo'),
  reason: 'conformance check',
});

export const qrisCancelScenarios: Scenario[] = [
  ...authNegatives('qris-cancel', cancel),
  {
    id: 'qris-cancel-reason-too-long',
    title: 'a reason over 256 characters is an invalid field format (4007701)',
    kind: 'negative',
    request: (ctx) => ({ body: { ...cancel(ctx), reason: longText(257) } }),
    expect: MALFORMED,
  },
  {
    id: 'qris-cancel-no-reference',
    title: 'neither originalReferenceNo nor originalPartnerReferenceNo is a missing mandatory field (4007702)',
    kind: 'negative',
    request: () => ({ body: { reason: 'conformance check' } }),
    expect: MISSING,
  },
  {
    id: 'qris-cancel-unknown',
    title: 'an unknown reference is Transaction Not Found (4047701)',
    kind: 'negative',
    request: (ctx) => ({ body: { originalPartnerReferenceNo: `CF${ctx.run}NOPE`, reason: 'conformance check' } }),
    expect: { status: 404, cases: ['01'] },
  },
  {
    id: 'qris-cancel-ok',
    title: 'the unpaid QRIS is canceled (2007700), references echoed',
    kind: 'positive',
    request: (ctx) => ({ body: cancel(ctx) }),
    expect: {
      ...OK,
      echo: (ctx) => ({
        originalReferenceNo: ctx.need('qrisReferenceNo'),
        originalPartnerReferenceNo: ctx.need('qrisPartnerReferenceNo'),
      }),
    },
  },
  replayRow('qris-cancel', 'qris-cancel-ok'),
  conflictRow('qris-cancel', 'qris-cancel-ok', (ctx) => ({ ...cancel(ctx), reason: 'another reason' })),
  {
    id: 'qris-cancel-again',
    title: 'canceling the canceled QRIS again (new X-EXTERNAL-ID) is refused as not allowed (405, or another 4xx)',
    kind: 'negative',
    request: (ctx) => ({ body: cancel(ctx) }),
    expect: NOT_ALLOWED,
  },
];

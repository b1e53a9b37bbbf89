// VA status (inquiry status, service 26): POST /api/snap/v1.0/transfer-va/status.
import type { ConformanceContext, Scenario } from '../types.ts';
import { authNegatives, conflictRow, MISSING, OK, replayRow } from './common.ts';
import { UNKNOWN_VA, vaEchoes, vaKeys } from './va-lookup.ts';

const status = (ctx: ConformanceContext) => ({ ...vaKeys(ctx), inquiryRequestId: `CF${ctx.run}S1` });

export const vaStatusScenarios: Scenario[] = [
  ...authNegatives('va-status', status),
  {
    id: 'va-status-ok',
    title: 'the created VA reads as not paid (2002600, paymentFlagStatus 01), VA echoed',
    kind: 'positive',
    request: (ctx) => ({ body: status(ctx) }),
    expect: {
      ...OK,
      echo: (ctx) => ({ ...vaEchoes(ctx), 'virtualAccountData.paymentFlagStatus': '01' }),
    },
  },
  replayRow('va-status', 'va-status-ok'),
  conflictRow('va-status', 'va-status-ok', (ctx) => ({ ...status(ctx), inquiryRequestId: `CF${ctx.run}S2` })),
  {
    id: 'va-status-unknown',
    title: 'an unknown virtualAccountNo is Invalid Bill/Virtual Account (4042612)',
    kind: 'negative',
    request: (ctx) => ({ body: { virtualAccountNo: UNKNOWN_VA, inquiryRequestId: `CF${ctx.run}S3` } }),
    expect: { status: 404, cases: ['12'] },
  },
  {
    id: 'va-status-missing-va-no',
    title: 'a missing virtualAccountNo is a missing mandatory field (4002602)',
    kind: 'negative',
    request: (ctx) => ({ body: { trxId: ctx.need('trxId'), inquiryRequestId: `CF${ctx.run}S4` } }),
    expect: MISSING,
  },
];

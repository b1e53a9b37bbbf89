// VA update (service 28): PUT /api/snap/v1.0/transfer-va/update-va.
import type { ConformanceContext, Scenario } from '../types.ts';
import { authNegatives, conflictRow, idr, MALFORMED, MISSING, OK, replayRow } from './common.ts';
import { UNKNOWN_VA, vaEchoes, vaKeys } from './va-lookup.ts';

const update = (ctx: ConformanceContext) => ({ ...vaKeys(ctx), totalAmount: idr('175000.00') });

export const vaUpdateScenarios: Scenario[] = [
  ...authNegatives('va-update', update),
  {
    id: 'va-update-ok',
    title: 'the unpaid VA takes a new amount (2002800), VA and new amount echoed',
    kind: 'positive',
    request: (ctx) => ({ body: update(ctx) }),
    expect: {
      ...OK,
      echo: (ctx) => ({ ...vaEchoes(ctx), 'virtualAccountData.totalAmount': idr('175000.00') }),
    },
  },
  replayRow('va-update', 'va-update-ok'),
  conflictRow('va-update', 'va-update-ok', (ctx) => ({ ...vaKeys(ctx), totalAmount: idr('180000.00') })),
  {
    id: 'va-update-unknown',
    title: 'an unknown virtualAccountNo is Invalid Bill/Virtual Account (4042812)',
    kind: 'negative',
    request: () => ({ body: { virtualAccountNo: UNKNOWN_VA, totalAmount: idr('175000.00') } }),
    expect: { status: 404, cases: ['12'] },
  },
  {
    id: 'va-update-missing-va-no',
    title: 'a missing virtualAccountNo is a missing mandatory field (4002802)',
    kind: 'negative',
    request: (ctx) => ({ body: { trxId: ctx.need('trxId'), totalAmount: idr('175000.00') } }),
    expect: MISSING,
  },
  {
    id: 'va-update-amount-malformed',
    title: 'a totalAmount.value without two fraction digits is an invalid field format (4002801)',
    kind: 'negative',
    request: (ctx) => ({ body: { ...vaKeys(ctx), totalAmount: idr('175000.5') } }),
    expect: MALFORMED,
  },
];

// VA delete (service 31): DELETE /api/snap/v1.0/transfer-va/delete-va, with a JSON body.
import type { Scenario } from '../types.ts';
import { authNegatives, conflictRow, MISSING, NOT_ALLOWED, OK, replayRow } from './common.ts';
import { UNKNOWN_VA, vaEchoes, vaKeys } from './va-lookup.ts';

export const vaDeleteScenarios: Scenario[] = [
  ...authNegatives('va-delete', vaKeys),
  {
    id: 'va-delete-unknown',
    title: 'an unknown virtualAccountNo is Invalid Bill/Virtual Account (4043112)',
    kind: 'negative',
    request: () => ({ body: { virtualAccountNo: UNKNOWN_VA } }),
    expect: { status: 404, cases: ['12'] },
  },
  {
    id: 'va-delete-missing-va-no',
    title: 'a missing virtualAccountNo is a missing mandatory field (4003102)',
    kind: 'negative',
    request: (ctx) => ({ body: { trxId: ctx.need('trxId') } }),
    expect: MISSING,
  },
  {
    id: 'va-delete-ok',
    title: 'the unpaid VA is deleted (2003100), virtualAccountNo and trxId echoed',
    kind: 'positive',
    request: (ctx) => ({ body: vaKeys(ctx) }),
    expect: { ...OK, echo: vaEchoes },
  },
  replayRow('va-delete', 'va-delete-ok'),
  conflictRow('va-delete', 'va-delete-ok', (ctx) => {
    const { trxId: _omit, ...body } = vaKeys(ctx);
    return body;
  }),
  {
    id: 'va-delete-again',
    title: 'deleting the deleted VA again (new X-EXTERNAL-ID) is refused as not allowed (405, or another 4xx)',
    kind: 'negative',
    request: (ctx) => ({ body: vaKeys(ctx) }),
    expect: NOT_ALLOWED,
  },
];

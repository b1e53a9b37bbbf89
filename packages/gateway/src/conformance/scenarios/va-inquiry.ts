// VA inquiry (service 30): POST /api/snap/v1.0/transfer-va/inquiry-va.
import type { Scenario } from '../types.ts';
import { authNegatives, conflictRow, MALFORMED, MISSING, OK, replayRow } from './common.ts';
import { UNKNOWN_VA, vaEchoes, vaKeys } from './va-lookup.ts';

export const vaInquiryScenarios: Scenario[] = [
  ...authNegatives('va-inquiry', vaKeys),
  {
    id: 'va-inquiry-ok',
    title: 'the created VA is found (2003000), virtualAccountNo and trxId echoed',
    kind: 'positive',
    request: (ctx) => ({ body: vaKeys(ctx) }),
    expect: { ...OK, echo: vaEchoes },
  },
  {
    id: 'va-inquiry-without-trx-id',
    title: 'the created VA is found by virtualAccountNo alone (2003000)',
    kind: 'positive',
    request: (ctx) => {
      const { trxId: _omit, ...body } = vaKeys(ctx);
      return { body };
    },
    expect: { ...OK, echo: vaEchoes },
  },
  replayRow('va-inquiry', 'va-inquiry-ok'),
  conflictRow('va-inquiry', 'va-inquiry-ok', (ctx) => {
    const { trxId: _omit, ...body } = vaKeys(ctx);
    return { ...body, inquiryRequestId: `CF${ctx.run}I2` };
  }),
  {
    id: 'va-inquiry-unknown',
    title: 'an unknown virtualAccountNo is Invalid Bill/Virtual Account (4043012)',
    kind: 'negative',
    request: () => ({ body: { virtualAccountNo: UNKNOWN_VA } }),
    expect: { status: 404, cases: ['12'] },
  },
  {
    id: 'va-inquiry-other-trx-id',
    title: 'the VA with a trxId that is not its own is not found (404)',
    kind: 'negative',
    request: (ctx) => ({ body: { ...vaKeys(ctx), trxId: `CF${ctx.run}OTHER` } }),
    expect: { status: 404 },
  },
  {
    id: 'va-inquiry-missing-va-no',
    title: 'a missing virtualAccountNo is a missing mandatory field (4003002)',
    kind: 'negative',
    request: (ctx) => ({ body: { trxId: ctx.need('trxId') } }),
    expect: MISSING,
  },
  {
    id: 'va-inquiry-va-no-not-string',
    title: 'a virtualAccountNo that is not a string is an invalid field format (4003001)',
    kind: 'negative',
    request: () => ({ body: { virtualAccountNo: 12345 } }),
    expect: MALFORMED,
  },
];

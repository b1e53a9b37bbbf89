// VA create (service 27): POST /api/snap/v1.0/transfer-va/create-va.
import type { ConformanceContext, Scenario } from '../types.ts';
import {
  at,
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

/** The trxId of the VA this run creates (read, updated, then deleted by later files). */
export const vaTrxId = (ctx: ConformanceContext) => `CF${ctx.run}V1`;
const valid = (ctx: ConformanceContext) => ({
  virtualAccountName: 'Conformance Check',
  trxId: vaTrxId(ctx),
  totalAmount: idr('150000.00'),
  virtualAccountTrxType: 'C',
});
const other = (ctx: ConformanceContext) => ({ ...valid(ctx), trxId: `CF${ctx.run}V2` });

export const vaCreateScenarios: Scenario[] = [
  ...authNegatives('va-create', other),
  {
    id: 'va-create-ok',
    title: 'a closed VA is created (2002700), trxId, name and amount echoed',
    kind: 'positive',
    request: (ctx) => ({ body: valid(ctx) }),
    expect: {
      ...OK,
      echo: (ctx) => ({
        'virtualAccountData.trxId': vaTrxId(ctx),
        'virtualAccountData.virtualAccountName': 'Conformance Check',
        'virtualAccountData.totalAmount': idr('150000.00'),
      }),
      check: nonEmptyStrings('virtualAccountData.virtualAccountNo'),
      save: (body, ctx) => {
        ctx.values.virtualAccountNo = String(at(body, 'virtualAccountData.virtualAccountNo'));
        for (const k of ['partnerServiceId', 'customerNo']) {
          const v = at(body, `virtualAccountData.${k}`);
          if (typeof v === 'string') ctx.values[k] = v;
        }
        ctx.values.trxId = vaTrxId(ctx);
      },
    },
  },
  replayRow('va-create', 'va-create-ok'),
  conflictRow('va-create', 'va-create-ok', other),
  {
    id: 'va-create-duplicate-trx-id',
    title: 'a trxId used before is refused as a duplicate (409)',
    kind: 'negative',
    request: (ctx) => ({ body: { ...valid(ctx), trxId: ctx.need('trxId'), totalAmount: idr('1000.00') } }),
    expect: { status: 409 },
  },
  {
    id: 'va-create-missing-name',
    title: 'a missing virtualAccountName is a missing mandatory field (4002702)',
    kind: 'negative',
    request: (ctx) => {
      const { virtualAccountName: _omit, ...body } = other(ctx);
      return { body };
    },
    expect: MISSING,
  },
  {
    id: 'va-create-missing-trx-id',
    title: 'a missing trxId is a missing mandatory field (4002702)',
    kind: 'negative',
    request: (ctx) => {
      const { trxId: _omit, ...body } = other(ctx);
      return { body };
    },
    expect: MISSING,
  },
  {
    id: 'va-create-missing-amount',
    title: 'a closed VA without totalAmount is a missing mandatory field (4002702)',
    kind: 'negative',
    request: (ctx) => {
      const { totalAmount: _omit, ...body } = other(ctx);
      return { body };
    },
    expect: MISSING,
  },
  {
    id: 'va-create-amount-number',
    title: 'totalAmount.value as a JSON number is an invalid field format (4002701)',
    kind: 'negative',
    request: (ctx) => ({ body: { ...other(ctx), totalAmount: { value: 150000, currency: 'IDR' } } }),
    expect: MALFORMED,
  },
  {
    id: 'va-create-bad-trx-type',
    title: 'a virtualAccountTrxType other than C or O is an invalid field format (4002701)',
    kind: 'negative',
    request: (ctx) => ({ body: { ...other(ctx), virtualAccountTrxType: 'X' } }),
    expect: MALFORMED,
  },
  {
    id: 'va-create-trx-id-too-long',
    title: 'a trxId over 64 characters is an invalid field format (4002701)',
    kind: 'negative',
    request: (ctx) => ({ body: { ...other(ctx), trxId: longText(65) } }),
    expect: MALFORMED,
  },
];

// What the VA scenario files send to name the VA this run created: the standard's three keys.
import type { ConformanceContext } from '../types.ts';

/** partnerServiceId and customerNo as the server gave them (when it did), virtualAccountNo, trxId. */
export function vaKeys(ctx: ConformanceContext): Record<string, string> {
  const keys: Record<string, string> = {};
  if (ctx.values.partnerServiceId !== undefined) keys.partnerServiceId = ctx.values.partnerServiceId;
  if (ctx.values.customerNo !== undefined) keys.customerNo = ctx.values.customerNo;
  keys.virtualAccountNo = ctx.need('virtualAccountNo');
  keys.trxId = ctx.need('trxId');
  return keys;
}

/** A VA number no server holds: 20 characters, like a real one. */
export const UNKNOWN_VA = ' 9999999999999999999';

/** The fields a VA answer must echo inside virtualAccountData. */
export const vaEchoes = (ctx: ConformanceContext) => ({
  'virtualAccountData.virtualAccountNo': ctx.need('virtualAccountNo'),
  'virtualAccountData.trxId': ctx.need('trxId'),
});

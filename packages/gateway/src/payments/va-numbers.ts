import type { VirtualAccountNumbers } from '../records/records.ts';
import { sharedRuns } from '../shared-runs.ts';
import type { Store } from '../store/store.ts';

/**
 * How many VA numbers an instance reserves at once. Measured: taking one number per VA create was a
 * write of its own before the transaction's, a second commit (and fsync) in every create. A
 * reservation is one write per 32 VAs; the numbers an instance had not handed out when it stops are
 * never used (numbers are never reused), so a restart leaves a gap of at most 31 per merchant and bank.
 */
export const VA_NUMBERS_RESERVED = 32;

export interface VaNumbers {
  /** The next VA number of this merchant at this bank, never handed out before by any instance. */
  next(merchantId: string, bankCode: string): Promise<{ partnerServiceId: string; customerNo: string }>;
}

/** VA numbers handed out from reservations this instance made (one store write per `reserve` numbers). */
export function createVaNumbers(
  store: Pick<Store, 'allocateVirtualAccounts'>,
  reserve: number = VA_NUMBERS_RESERVED,
): VaNumbers {
  const reserved = new Map<string, VirtualAccountNumbers & { at: number }>();
  /** One reservation at a time per merchant and bank: the VAs created meanwhile wait for it. */
  const reserving = sharedRuns<void>();
  return {
    async next(merchantId, bankCode) {
      const key = `${merchantId}\n${bankCode}`;
      for (;;) {
        const numbers = reserved.get(key);
        const customerNo = numbers?.customerNos[numbers.at];
        if (numbers && customerNo !== undefined) {
          numbers.at++;
          return { partnerServiceId: numbers.partnerServiceId, customerNo };
        }
        await reserving(key, async () => {
          const r = await store.allocateVirtualAccounts(merchantId, bankCode, reserve);
          reserved.set(key, { ...r, at: 0 });
        });
      }
    },
  };
}

import type { ProviderRecord } from '../records/provider-records.ts';
import type { MerchantRecord, TransactionRecord } from '../records/records.ts';
import type { Store } from '../store/store.ts';
import { findCheckout } from './checkout-link.ts';

// What the hosted checkout (checkout/) may read, and all it may: a transaction by its page's id or
// its reference, the transaction's merchant, the name of its bank, the providers the sandbox's
// rules weigh. The payer's pages reach the data through this service, never through the Store.

export interface CheckoutReads {
  /** The transaction behind a checkout id (undefined for an unknown id, or a string no id can be). */
  byCheckoutId(checkoutId: string): Promise<TransactionRecord | undefined>;
  byReference(referenceNo: string): Promise<TransactionRecord | undefined>;
  merchant(merchantId: string): Promise<MerchantRecord | undefined>;
  /** The registered name of the active bank with this code, if one is registered. */
  activeBankName(bankCode: string): Promise<string | undefined>;
  /** Every provider: which sandbox provider would pay a transaction depends on them. */
  providers(): Promise<ProviderRecord[]>;
}

/** Providers a gateway has: far fewer than one page of 500. */
const PROVIDERS_PAGE = 500;

export function createCheckoutReads(store: Store): CheckoutReads {
  return {
    byCheckoutId: (checkoutId) => findCheckout(store, checkoutId),
    byReference: (referenceNo) => store.findTransaction(referenceNo),
    merchant: (merchantId) => store.findMerchantById(merchantId),
    async activeBankName(bankCode) {
      return (await store.findBanks(bankCode)).find((b) => b.status === 'active')?.name;
    },
    async providers() {
      return (await store.listProviders({ limit: PROVIDERS_PAGE })).items;
    },
  };
}

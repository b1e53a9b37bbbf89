// The upstream providers' records: banks and acquirers, calling snapgate over SNAP and called by it.
import type { ProviderPayouts } from './payout-records.ts';
import type { ClientKeys, MerchantStatus } from './records.ts';

export type ProviderKind = 'bank' | 'acquirer' | 'ewallet';

/** How snapgate calls an acquirer or the payout bank (SNAP client credentials snapgate holds at it). */
export interface ProviderOutbound {
  baseUrl: string;
  clientKey: string;
  clientSecret: string;
  /** Signs the token request SHA256withRSA when set; HMAC-SHA256 with the secret otherwise. */
  privateKeyPem: string | null;
  partnerId: string;
  channelId: string;
  tokenPath: string;
  pathPrefix: string;
}

/** A bank that owns a VA range, a QRIS acquirer or an e-wallet, calling snapgate over SNAP. */
export interface ProviderRecord extends ClientKeys {
  id: string;
  name: string;
  kind: ProviderKind;
  /** Banks: VAs created with this bankCode are theirs. Acquirers: the default payerIssuer. */
  bankCode: string;
  /** Verifies its token requests (SHA256withRSA). */
  publicKeyPem: string | null;
  outbound: ProviderOutbound | null;
  /** The built-in sandbox bank or acquirer: never accepted in production mode. */
  isSandbox: boolean;
  /**
   * Acquirers: this one acquires the QRIS snapgate issues itself (merchants without a
   * qrisProvider), and only it may notify them (with the sandbox acquirer in sandbox mode while no
   * acquirer is named). At most one provider.
   */
  acquiresGatewayQris: boolean;
  /** E-wallets: the wallet (`payOption`) it serves, e.g. `DANA` (docs/ewallets.md). At most one active each. */
  payOption?: string | null;
  /** Banks: set on the payout bank, which snapgate pays out through (docs/payouts.md). At most one. */
  payouts?: ProviderPayouts | null;
  status: MerchantStatus;
  createdAt: number;
  updatedAt: number;
}

export type ProviderPatch = Partial<
  Pick<ProviderRecord, 'name' | 'bankCode' | 'publicKeyPem' | 'outbound' | 'status' | 'acquiresGatewayQris'>
> &
  Pick<ProviderRecord, 'payouts'>;

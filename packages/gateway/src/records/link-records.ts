// Payment links (docs/payment-links.md): what the store keeps of one.

/** How a payer may pay through a link: QRIS, one bank's Virtual Account, one e-wallet. */
export type LinkMethod = 'qris' | `va:${string}` | `ewallet:${string}`;

export interface PaymentLink {
  /** `pl_` and 22 random base64url characters: the link's address, `/l/<id>`. */
  id: string;
  merchantId: string;
  description: string;
  /** The amount to pay (money string); null: the payer types it, within minAmount and maxAmount. */
  amount: string | null;
  minAmount: string | null;
  maxAmount: string | null;
  /** After it the link takes no payment; null: never. */
  expiresAt: number | null;
  /** Stops taking payments once one is paid. */
  singleUse: boolean;
  methods: LinkMethod[];
  /** Where the checkout page sends the payer once the payment ends. */
  returnUrl: string | null;
  /** False once deactivated: it takes no payment any more. */
  active: boolean;
  createdAt: number;
  updatedAt: number;
}

/** One payment made through a link, as its page lists it. */
export interface LinkPayment {
  referenceNo: string;
  kind: string;
  status: string;
  amount: string | null;
  paidAmount: string | null;
  createdAt: number;
  checkoutId: string | null;
}

// The records of money out (docs/payouts.md): the payout bank's settings, merchants' bank accounts,
// and the built-in sandbox bank's transfers.

/** A merchant's bank account, as given, and the name its bank answered when it was verified. */
export interface PayoutAccount {
  bankCode: string;
  accountNo: string;
  accountName: string;
  /** The payout bank's `beneficiaryAccountName` for the account. */
  verifiedName: string;
  verifiedAt: number;
}

/** `manual`: its settlements are paid out when an operator says so; `auto`: as soon as they are made. */
export type PayoutSchedule = 'manual' | 'auto';

/**
 * A bank provider's payout settings: set, it is the payout bank (at most one), which snapgate calls
 * with its `outbound` settings. `sourceAccountNo`: the operator's account the money leaves from.
 */
export interface ProviderPayouts {
  sourceAccountNo: string;
}

/**
 * A transfer the built-in sandbox bank took (sandbox mode), one per partnerReferenceNo: a repeat
 * answers its first answer again. A pending one (`03`) ends as `outcome` at the next status query.
 */
export interface SandboxTransferRecord {
  partnerReferenceNo: string;
  referenceNo: string;
  serviceCode: '17' | '18';
  beneficiaryBankCode: string;
  beneficiaryAccountNo: string;
  amount: string;
  status: '00' | '03' | '06';
  outcome: '00' | '06';
  httpStatus: number;
  responseBody: string;
  createdAt: number;
  updatedAt: number;
}

export type PayoutKind = 'settlement' | 'disbursement';

/** docs/payouts.md#paying-a-settlement: `sending` is committed before the bank is called. */
export type PayoutState = 'awaiting_approval' | 'sending' | 'pending' | 'paid' | 'failed' | 'rejected';

/** Money sent through the payout bank: one transfer, under `partnerReferenceNo` (from the id). */
export interface PayoutRecord {
  id: string;
  kind: PayoutKind;
  merchantId: string;
  settlementId: string | null;
  /** A disbursement's referenceNo (the gateway's; a settlement payout has none). */
  referenceNo: string | null;
  /** A disbursement's partnerReferenceNo, as its merchant sent it (one per merchant). */
  merchantReferenceNo?: string | null;
  /** A disbursement's X-EXTERNAL-ID: a repeat of it while it is on its way waits for its answer. */
  externalId?: string | null;
  /** A disbursement's `additionalInfo`, as its merchant sent it (echoed). */
  additionalInfo?: Record<string, unknown> | null;
  amountSen: bigint;
  feeSen: bigint;
  beneficiary: { bankCode: string; accountNo: string; name: string };
  state: PayoutState;
  partnerReferenceNo: string;
  /** The transfer service (17 or 18) and its transactionDate as sent: the status query names them. */
  service: '17' | '18';
  transactionDate: string | null;
  /** The admin key (or the schedule) that asked for it, and the one that approved it. */
  requestedBy: string;
  approvedBy: string | null;
  /** The bank's `referenceNo` of the transfer. */
  bankReference: string | null;
  error: string | null;
  /** When the bank is next asked where the transfer stands (36); null: not to be asked. */
  nextCheckAt: number | null;
  /** Status queries asked so far. */
  checks: number;
  createdAt: number;
  updatedAt: number;
}

/** One request to the bank for a payout and its answer (no secret, no signature). */
export interface PayoutExchangeRecord {
  at: number;
  service: '15' | '16' | '17' | '18' | '36';
  request: Record<string, unknown>;
  status: number | null;
  response: Record<string, unknown> | null;
  error?: string;
}

export interface PayoutFilter {
  kind?: PayoutKind | undefined;
  state?: PayoutState | undefined;
  merchantId?: string | undefined;
}

/**
 * Where a payout goes after an answer: `paid` and `failed` end it (and its settlement, in the same
 * transaction); `pending` keeps it to be asked about at `nextCheckAt`.
 */
export type PayoutChange =
  | { state: 'paid'; bankReference: string | null; transactionDate?: string | undefined }
  | { state: 'failed'; error: string; transactionDate?: string | undefined }
  | {
      state: 'pending';
      bankReference: string | null;
      error: string | null;
      nextCheckAt: number | null;
      checks: number;
      transactionDate?: string | undefined;
    };

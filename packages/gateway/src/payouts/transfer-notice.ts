import { fromMinorUnits } from '@snapgate/snap';
import { serializeCallback } from '../payments/notification-body.ts';
import { TRANSFER_STATUS_DESC } from '../providers/transfer-credit.ts';
import type { PayoutRecord } from '../records/payout-records.ts';
import type { CallbackJson } from '../records/records.ts';

// docs/payouts.md#transfer-callbacks: how a disbursement answered pending ended, told to its merchant
// by a signed callback through the outbox (its signing mode, retries, attempt log and replay).

/**
 * The callback body, serialised once in the merchant's JSON style: these bytes are stored, signed
 * and sent on every attempt.
 */
export function transferNoticeBody(p: PayoutRecord, status: '00' | '06', style: CallbackJson = 'standard'): string {
  return serializeCallback(
    {
      originalPartnerReferenceNo: p.merchantReferenceNo,
      originalReferenceNo: p.referenceNo,
      serviceCode: '18',
      latestTransactionStatus: status,
      transactionStatusDesc: TRANSFER_STATUS_DESC[status],
      amount: { value: fromMinorUnits(p.amountSen), currency: 'IDR' },
      beneficiaryAccountNo: p.beneficiary.accountNo,
      beneficiaryBankCode: p.beneficiary.bankCode,
      additionalInfo: p.additionalInfo ?? {},
    },
    style,
  );
}

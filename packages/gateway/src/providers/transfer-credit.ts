// SNAP Transfer Credit (ASPI), the part a bank serves to its business customers: account inquiry,
// transfers and their status. snapgate calls it at the payout bank (payout-bank.ts); the built-in
// sandbox bank serves it (sandbox-bank.ts). One table of the operations for both sides.

import { TRANSACTION_STATUS } from '@snapgate/snap';

/** The service codes of the Transfer Credit operations snapgate uses. */
export type TransferCreditService = '15' | '16' | '17' | '18' | '36';
export type InquiryService = '15' | '16';
export type TransferService = '17' | '18';

/** Each operation's path below the bank's SNAP prefix (`<pathPrefix>/<path>`). */
export const TRANSFER_CREDIT_PATHS: Record<TransferCreditService, string> = {
  '15': 'account-inquiry-internal',
  '16': 'account-inquiry-external',
  '17': 'transfer-intrabank',
  '18': 'transfer-interbank',
  '36': 'transfer/status',
};

/** A beneficiary at the payout bank itself is asked about (15) and paid (17) inside it. */
export const inquiryServiceFor = (bankBankCode: string, beneficiaryBankCode: string): InquiryService =>
  bankBankCode === beneficiaryBankCode ? '15' : '16';
export const transferServiceFor = (bankBankCode: string, beneficiaryBankCode: string): TransferService =>
  bankBankCode === beneficiaryBankCode ? '17' : '18';

/** An account number as banks take it: digits, at most 34 (ASPI `beneficiaryAccountNo`). */
export const ACCOUNT_NO = /^\d{1,34}$/;
/** A bank code: 3 digits (Bank Indonesia's). */
export const BANK_CODE = /^\d{3}$/;

/** `latestTransactionStatus` of a transfer (ASPI): 00 success, 01-03 in progress, 06 failed, 07 not found. */
export const TRANSFER_STATUS_DESC: Record<string, string> = { ...TRANSACTION_STATUS, '07': 'Not Found' };

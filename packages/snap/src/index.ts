export { HEADER, HEADER_DISPLAY } from './headers.ts';
export { formatJakartaTimestamp, jakartaDay, parseSnapTimestamp } from './timestamp.ts';
export { bodyDigest } from './digest.ts';
export {
  type CallbackParts,
  type ServiceRequestParts,
  callbackHmacStringToSign,
  callbackRsaStringToSign,
  serviceStringToSign,
  tokenStringToSign,
} from './string-to-sign.ts';
export {
  hmacSha256Base64,
  hmacSha512Base64,
  rsaSha256SignBase64,
  verifyHmacSha256,
  verifyHmacSha512,
  verifyRsaSha256,
} from './signature.ts';
export {
  SERVICE,
  SNAP_CASES,
  type ServiceCode,
  type SnapBody,
  type SnapCase,
  SnapError,
  type SnapErrorOptions,
  isSnapError,
  snapError,
  successCode,
} from './errors.ts';
export { type Money, compareMoney, fromMinorUnits, isMoneyValue, toMinorUnits } from './money.ts';
export {
  TRANSACTION_STATUS,
  type TransactionStatus,
  canChangeStatus,
  isFinalStatus,
  isTransactionStatus,
  statusRank,
} from './status.ts';

export { bodyDigest } from './digest.ts';
export {
  isSnapError,
  SERVICE,
  type ServiceCode,
  SNAP_CASES,
  type SnapBody,
  type SnapCase,
  SnapError,
  type SnapErrorOptions,
  snapError,
  successCode,
} from './errors.ts';
export { B2B_TOKEN_PATH, B2B2C_TOKEN_PATH, HEADER, HEADER_DISPLAY } from './headers.ts';
export { isJsonObject, isNestedDeeper, MAX_JSON_DEPTH, mediaType, parseJsonBody } from './json-body.ts';
export { compareMoney, fromMinorUnits, idr, isMoneyValue, type Money, toMinorUnits } from './money.ts';
export { phpJsonEncode } from './php-json.ts';
export {
  hmacSha256Base64,
  hmacSha512Base64,
  rsaSha256SignBase64,
  verifyHmacSha256,
  verifyHmacSha512,
  verifyRsaSha256,
} from './signature.ts';
export {
  canChangeStatus,
  isFinalStatus,
  isTransactionStatus,
  statusRank,
  TRANSACTION_STATUS,
  type TransactionStatus,
} from './status.ts';
export {
  type CallbackParts,
  callbackHmacStringToSign,
  callbackRsaStringToSign,
  type ServiceRequestParts,
  serviceStringToSign,
  tokenStringToSign,
} from './string-to-sign.ts';
export { formatJakartaTimestamp, jakartaDay, parseSnapTimestamp } from './timestamp.ts';

// @snapgate/merchant-sdk: what a merchant needs to talk to a SNAP gateway (docs/protocol.md).

// Re-exported so a merchant needs only this package.
export {
  compareMoney,
  fromMinorUnits,
  idr,
  isMoneyValue,
  isSnapError,
  type Money,
  SnapError,
  type TransactionStatus,
  toMinorUnits,
} from '@snapgate/snap';
export {
  CALLBACK_PATHS,
  type ExpressMiddleware,
  type ExpressRequestLike,
  type FastifyLike,
  type FastifyReplyLike,
  type FastifyRequestLike,
  fastifyCallbackPlugin,
  type RequestHandlerLike,
  TRANSFER_CALLBACK_PATH,
  toExpress,
} from './adapters.ts';
export {
  ACKNOWLEDGEMENT,
  actionOf,
  type CallbackAction,
  type CallbackHandler,
  type CallbackHandlerOptions,
  type CallbackOutcome,
  type CallbackResult,
  createCallbackHandler,
  createTransferCallbackHandler,
  isNewerStatus,
  type RefundEvent,
  readRawBody,
  type StatusEvent,
  type TransferAction,
  type TransferCallbackHandlerOptions,
  type TransferEvent,
  writeResult,
} from './callback-handler.ts';
export { type Clock, systemClock } from './clock.ts';
export type * from './debit-types.ts';
export { SnapApiError, SnapNetworkError } from './errors.ts';
export { createSnapB2bTokenIssuer, type SnapB2bIssuerOptions, type SnapB2bTokenIssuer } from './snap-b2b-issuer.ts';
export {
  API_PREFIX,
  type CallOptions,
  createSnapClient,
  newExternalId,
  type SnapClient,
  type SnapClientOptions,
} from './snap-client.ts';
export {
  createMemoryDedupeStore,
  createMemoryStatusStore,
  type DedupeStore,
  type StatusStore,
} from './stores.ts';
export {
  createTokenClient,
  TOKEN_PATH,
  type TokenClient,
  type TokenClientOptions,
  type TokenCredentials,
} from './token-client.ts';
export type * from './types.ts';
export {
  type CallbackKey,
  type CallbackRequest,
  type HeadersLike,
  headerValue,
  type SnapB2bTokens,
  type VerifyCallbackOptions,
  verifyCallback,
  verifyTransferCallback,
} from './verify-callback.ts';

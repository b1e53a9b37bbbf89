/**
 * The B2B access-token path: the gateway's own, a provider's, an acquirer's and a `snap-b2b`
 * merchant's token endpoint all live here by default.
 *
 * @example
 * `${baseUrl}${B2B_TOKEN_PATH}`; // 'http://127.0.0.1:8080/api/snap/v1.0/access-token/b2b'
 */
export const B2B_TOKEN_PATH = '/api/snap/v1.0/access-token/b2b';

/** The B2B2C (customer) token path: a bound account's token, from its authCode or refresh token. */
export const B2B2C_TOKEN_PATH = '/api/snap/v1.0/access-token/b2b2c';

/** SNAP header names, exactly as the standard spells them. */
export const HEADER = {
  contentType: 'content-type',
  authorization: 'authorization',
  clientKey: 'x-client-key',
  timestamp: 'x-timestamp',
  signature: 'x-signature',
  partnerId: 'x-partner-id',
  externalId: 'x-external-id',
  channelId: 'channel-id',
  /** A bound customer's token beside the merchant's (account binding, B2B2C). */
  customerAuthorization: 'authorization-customer',
} as const;

/** Header names as they appear in error messages (`Invalid Mandatory Field {X-TIMESTAMP}`). */
export const HEADER_DISPLAY: Record<string, string> = {
  'content-type': 'Content-Type',
  authorization: 'Authorization',
  'x-client-key': 'X-CLIENT-KEY',
  'x-timestamp': 'X-TIMESTAMP',
  'x-signature': 'X-SIGNATURE',
  'x-partner-id': 'X-PARTNER-ID',
  'x-external-id': 'X-EXTERNAL-ID',
  'channel-id': 'CHANNEL-ID',
  'authorization-customer': 'Authorization-Customer',
};

/** SNAP header names, exactly as the standard spells them (src 2.1, 2.5). */
export const HEADER = {
  contentType: 'content-type',
  authorization: 'authorization',
  clientKey: 'x-client-key',
  timestamp: 'x-timestamp',
  signature: 'x-signature',
  partnerId: 'x-partner-id',
  externalId: 'x-external-id',
  channelId: 'channel-id',
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
};

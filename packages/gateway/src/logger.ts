import { type DestinationStream, type Logger, type LoggerOptions, pino } from 'pino';

export type { Logger };

// Never keys, secrets, tokens, signatures or full bodies. Call sites log only
// identifiers; redaction is the second line of defence for a careless call.
const REDACT = [
  'clientSecret',
  'previousSecret',
  'accessToken',
  'signature',
  'privateKeyPem',
  'adminToken',
  '*.clientSecret',
  '*.previousSecret',
  '*.accessToken',
  '*.signature',
  '*.privateKeyPem',
  'headers.authorization',
  'headers["x-signature"]',
  'req.headers.authorization',
  'req.headers["x-signature"]',
];

export function createLogger(level: LoggerOptions['level'], destination?: DestinationStream): Logger {
  const options: LoggerOptions = {
    level,
    redact: { paths: REDACT, censor: '[redacted]' },
    base: { service: 'snapgate' },
    timestamp: pino.stdTimeFunctions.isoTime,
  };
  return destination ? pino(options, destination) : pino(options);
}

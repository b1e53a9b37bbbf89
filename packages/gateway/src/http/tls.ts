import { readFileSync } from 'node:fs';
import { createServer as createHttpServer, type RequestListener, type Server } from 'node:http';
import { createServer as createHttpsServer, type Server as HttpsServer } from 'node:https';
import type { SecureContextOptions } from 'node:tls';
import type { Config } from '../config.ts';

/** SNAP requires TLS 1.2 or newer on every hop. */
const TLS_MIN_VERSION = 'TLSv1.2' as const;

function contextOf(tls: NonNullable<Config['tls']>): SecureContextOptions {
  return { cert: readFileSync(tls.certFile), key: readFileSync(tls.keyFile), minVersion: TLS_MIN_VERSION };
}

/**
 * The server the gateway answers on: HTTPS when a certificate and key are configured (TLS 1.2
 * minimum), plain HTTP otherwise (behind a TLS-terminating proxy, or on loopback).
 */
export function serverFactoryFor(config: Pick<Config, 'tls'>) {
  return (handler: RequestListener): Server =>
    config.tls ? (createHttpsServer(contextOf(config.tls), handler) as unknown as Server) : createHttpServer(handler);
}

export const isTls = (server: Server): boolean =>
  typeof (server as unknown as HttpsServer).setSecureContext === 'function';

/**
 * Re-reads the certificate and key (on SIGHUP: a renewed certificate without a restart). New
 * connections get the new certificate; a file that cannot be read or parsed leaves the old one.
 */
export function reloadTls(server: Server, config: Pick<Config, 'tls'>): void {
  if (!config.tls || !isTls(server)) return;
  (server as unknown as HttpsServer).setSecureContext(contextOf(config.tls));
}

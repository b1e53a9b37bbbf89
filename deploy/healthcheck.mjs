#!/usr/bin/env node
// The container's HEALTHCHECK: GET /readyz on this gateway (the database answers), exit 0 when
// it answers 200, else 1. No curl in a slim image, so Node itself asks. It reads the gateway's own
// settings: SNAPGATE_PORT (8080), SNAPGATE_HOST (an unspecified address is asked on loopback) and,
// when the gateway serves TLS itself (SNAPGATE_TLS_CERT_FILE), asks over https without checking
// the certificate's name: the certificate names the public address, not 127.0.0.1.
import { get as httpGet } from 'node:http';
import { get as httpsGet } from 'node:https';

const env = process.env;
const port = Number(env.SNAPGATE_PORT ?? '8080');
const configured = env.SNAPGATE_HOST ?? '127.0.0.1';
const host = configured === '0.0.0.0' || configured === '::' || configured === '[::]' ? '127.0.0.1' : configured;
const tls = Boolean(env.SNAPGATE_TLS_CERT_FILE);
/** Below the HEALTHCHECK's --timeout (5 s), so a hung gateway is reported as such. */
const timeoutMs = 4000;

const options = {
  host: host.replace(/^\[|\]$/g, ''),
  port,
  path: '/readyz',
  timeout: timeoutMs,
  ...(tls ? { rejectUnauthorized: false } : {}),
};

const req = (tls ? httpsGet : httpGet)(options, (res) => {
  res.resume();
  res.on('end', () => process.exit(res.statusCode === 200 ? 0 : 1));
});
req.on('timeout', () => req.destroy(new Error(`no answer within ${timeoutMs} ms`)));
req.on('error', (e) => {
  process.stderr.write(`snapgate healthcheck: ${e.message}\n`);
  process.exit(1);
});

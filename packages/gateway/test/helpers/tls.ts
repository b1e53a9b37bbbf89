import { execFileSync } from 'node:child_process';
import { join } from 'node:path';

/**
 * A self-signed P-256 certificate for one day, written as `cert.pem` and `key.pem` in `dir` (what a
 * private CA or a staging receiver holds); `altNames` like `IP:127.0.0.1,DNS:localhost`.
 */
export function makeSelfSignedCert(dir: string, commonName: string, altNames?: string): void {
  execFileSync(
    'openssl',
    [
      'req',
      '-x509',
      '-newkey',
      'ec',
      '-pkeyopt',
      'ec_paramgen_curve:P-256',
      '-nodes',
      '-days',
      '1',
      '-subj',
      `/CN=${commonName}`,
      ...(altNames ? ['-addext', `subjectAltName=${altNames}`] : []),
      '-keyout',
      join(dir, 'key.pem'),
      '-out',
      join(dir, 'cert.pem'),
    ],
    { stdio: 'ignore' },
  );
}

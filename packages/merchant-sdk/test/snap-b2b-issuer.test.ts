import assert from 'node:assert/strict';
import { generateKeyPairSync } from 'node:crypto';
import { describe, it } from 'node:test';
import { formatJakartaTimestamp, rsaSha256SignBase64, tokenStringToSign } from '@snapgate/snap';
import { toExpress } from '../src/adapters.ts';
import { createSnapB2bTokenIssuer } from '../src/snap-b2b-issuer.ts';
import { listen, post } from './helpers.ts';

const gateway = generateKeyPairSync('rsa', { modulusLength: 2048 });
const NOW = Date.parse('2026-11-23T03:00:00Z');
const clock = { now: () => NOW };
const TOKEN_PATH = '/api/snap/v1.0/access-token/b2b';

function tokenHeaders(over: Record<string, string | undefined> = {}, key = gateway.privateKey) {
  const ts = over['x-timestamp'] ?? formatJakartaTimestamp(NOW);
  const headers: Record<string, string | undefined> = {
    'content-type': 'application/json',
    'x-client-key': 'CK',
    'x-timestamp': ts,
    'x-signature': rsaSha256SignBase64(key, tokenStringToSign('CK', ts)),
    ...over,
  };
  return Object.fromEntries(Object.entries(headers).filter(([, v]) => v !== undefined)) as Record<string, string>;
}

describe('createSnapB2bTokenIssuer: the merchant’s token endpoint for snap-b2b callbacks', () => {
  const issuer = createSnapB2bTokenIssuer({
    clientKey: 'CK',
    gatewayPublicKeyPem: gateway.publicKey.export({ type: 'spki', format: 'pem' }).toString(),
    ttlSec: 120,
    clock,
  });
  const body = '{"grantType":"client_credentials"}';

  it('issues a short-lived token to a request signed by the gateway’s key, over node:http and Express', async () => {
    for (const listener of [issuer, (req: never, res: never) => toExpress(issuer)(req, res, () => undefined)]) {
      const server = await listen(listener as never);
      try {
        const r = await post(`${server.url}${TOKEN_PATH}`, body, tokenHeaders());
        assert.equal(r.status, 200);
        const answer = r.body as { responseCode: string; tokenType: string; expiresIn: string; accessToken: string };
        assert.equal(answer.responseCode, '2007300');
        assert.equal(answer.tokenType, 'Bearer');
        assert.equal(answer.expiresIn, '120');
        assert.equal(issuer.isValid(answer.accessToken), true);
      } finally {
        await server.close();
      }
    }
    assert.equal(issuer.isValid('never-issued'), false);
  });

  it('refuses every bad token request with its SNAP answer', async () => {
    const other = generateKeyPairSync('rsa', { modulusLength: 2048 }).privateKey;
    const cases: Array<[Record<string, string>, string, string]> = [
      [tokenHeaders({ 'x-signature': undefined }), '4007302', 'Invalid Mandatory Field {X-SIGNATURE}'],
      [tokenHeaders({ 'content-type': 'text/plain' }), '4007301', 'Invalid Field Format {Content-Type}'],
      [tokenHeaders({ 'x-timestamp': 'yesterday' }), '4007301', 'Invalid Field Format {X-TIMESTAMP}'],
      [tokenHeaders({ 'x-client-key': 'OTHER' }), '4017300', 'Unauthorized. [Unknown Client]'],
      [
        tokenHeaders({ 'x-timestamp': formatJakartaTimestamp(NOW - 301_000) }),
        '4017300',
        'Unauthorized. [Timestamp Out Of Range]',
      ],
      [tokenHeaders({}, other), '4017300', 'Unauthorized. [Invalid Signature]'],
    ];
    for (const [headers, code, message] of cases) {
      const r = await issuer.handle({ method: 'POST', path: TOKEN_PATH, headers, rawBody: body });
      assert.deepEqual(r.body, { responseCode: code, responseMessage: message }, JSON.stringify(headers));
    }
    const wrongGrant = await issuer.handle({
      method: 'POST',
      path: TOKEN_PATH,
      headers: tokenHeaders(),
      rawBody: '{"grantType":"password"}',
    });
    assert.deepEqual(wrongGrant.body, { responseCode: '4007301', responseMessage: 'Invalid Field Format {grantType}' });
  });
});

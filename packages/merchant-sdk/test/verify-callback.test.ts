import assert from 'node:assert/strict';
import { generateKeyPairSync } from 'node:crypto';
import { describe, it } from 'node:test';
import { callbackRsaStringToSign, formatJakartaTimestamp, rsaSha256SignBase64 } from '@snapgate/snap';
import { headerValue, verifyCallback } from '../src/verify-callback.ts';
import { notificationBody, PARTNER, QR_PATH, SECRET, signedHeaders } from './helpers.ts';

const NOW = Date.parse('2024-01-01T03:00:00Z');
const opts = { clientSecret: SECRET, partnerId: PARTNER, now: NOW };
const request = (body: string, headers: Record<string, string>, path = QR_PATH) => ({
  method: 'POST',
  path,
  headers,
  rawBody: Buffer.from(body),
});

describe('verifyCallback', () => {
  it('returns the typed notification of a correctly signed callback', () => {
    const body = notificationBody('00');
    const n = verifyCallback(request(body, signedHeaders(body, { nowMs: NOW })), opts);
    assert.equal(n.latestTransactionStatus, '00');
    assert.equal(n.originalReferenceNo, 'REF-1');
    assert.deepEqual(n.amount, { value: '10000.00', currency: 'IDR' });
    assert.equal(n.additionalInfo.billNumber, 100000000001);
  });

  it('verifies the raw bytes as received, even when they are not how JSON.stringify would write them', () => {
    const body =
      '{ "originalReferenceNo":"R\\/1", "originalPartnerReferenceNo":"O", "latestTransactionStatus":"03", "amount":{"value":"1.00","currency":"IDR"} }';
    const n = verifyCallback(request(body, signedHeaders(body, { nowMs: NOW })), opts);
    assert.equal(n.originalReferenceNo, 'R/1');
    assert.deepEqual(n.additionalInfo, {});
  });

  it('refuses a tampered body with 401 4012600 [Invalid Signature]', () => {
    const body = notificationBody('06');
    const headers = signedHeaders(body, { nowMs: NOW });
    assert.throws(() => verifyCallback(request(body.replace('"06"', '"00"'), headers), opts), {
      name: 'SnapError',
      httpStatus: 401,
      responseCode: '4012600',
      responseMessage: 'Unauthorized. [Invalid Signature]',
    });
  });

  it('refuses a signature made for another path, or with another secret', () => {
    const body = notificationBody('00');
    assert.throws(() => verifyCallback(request(body, signedHeaders(body, { nowMs: NOW }), '/other'), opts), {
      responseCode: '4012600',
    });
    assert.throws(() => verifyCallback(request(body, signedHeaders(body, { nowMs: NOW, secret: 'x' })), opts), {
      responseMessage: 'Unauthorized. [Invalid Signature]',
    });
  });

  it('signs over the path with its query', () => {
    const body = notificationBody('00');
    const path = '/hook?shop=1';
    assert.equal(
      verifyCallback(request(body, signedHeaders(body, { nowMs: NOW, path }), path), opts).amount.value,
      '10000.00',
    );
  });

  it('accepts any of several secrets while a rotated one overlaps', () => {
    const body = notificationBody('00');
    const headers = signedHeaders(body, { nowMs: NOW, secret: 'old-secret' });
    const n = verifyCallback(request(body, headers), { ...opts, clientSecret: [SECRET, 'old-secret'] });
    assert.equal(n.latestTransactionStatus, '00');
  });

  it('rejects a timestamp 6 minutes in the past or the future, and accepts one 4 minutes off', () => {
    const body = notificationBody('00');
    for (const offsetMs of [-360_000, 360_000]) {
      assert.throws(() => verifyCallback(request(body, signedHeaders(body, { nowMs: NOW + offsetMs })), opts), {
        httpStatus: 401,
        responseCode: '4012600',
        responseMessage: 'Unauthorized. [Timestamp Out Of Range]',
      });
    }
    assert.ok(verifyCallback(request(body, signedHeaders(body, { nowMs: NOW - 240_000 })), opts));
    assert.throws(
      () => verifyCallback(request(body, signedHeaders(body, { nowMs: NOW - 240_000 })), { ...opts, toleranceSec: 60 }),
      { responseCode: '4012600' },
    );
  });

  it('refuses another partner with [Unknown Partner]', () => {
    const body = notificationBody('00');
    assert.throws(() => verifyCallback(request(body, signedHeaders(body, { nowMs: NOW, partnerId: 'EVIL' })), opts), {
      responseCode: '4012600',
      responseMessage: 'Unauthorized. [Unknown Partner]',
    });
  });

  it('names the first missing header, and a malformed timestamp', () => {
    const body = notificationBody('00');
    for (const name of ['x-timestamp', 'x-signature', 'x-partner-id']) {
      const headers = signedHeaders(body, { nowMs: NOW });
      delete headers[name];
      assert.throws(() => verifyCallback(request(body, headers), opts), {
        httpStatus: 400,
        responseCode: '4002602',
        responseMessage: `Invalid Mandatory Field {${name.toUpperCase()}}`,
      });
    }
    assert.throws(() => verifyCallback(request(body, signedHeaders(body, { timestamp: '2024-01-01 10:00' })), opts), {
      responseCode: '4002601',
      responseMessage: 'Invalid Field Format {X-TIMESTAMP}',
    });
  });

  it('accepts a timestamp with a Z zone and fractional seconds, signed exactly as sent', () => {
    const body = notificationBody('00');
    const headers = signedHeaders(body, { timestamp: '2024-01-01T03:00:00.123Z' });
    assert.ok(verifyCallback(request(body, headers), opts));
  });

  it('refuses another method with 405', () => {
    const body = notificationBody('00');
    assert.throws(
      () => verifyCallback({ ...request(body, signedHeaders(body, { nowMs: NOW })), method: 'PUT' }, opts),
      {
        httpStatus: 405,
        responseCode: '4052601',
      },
    );
  });

  it('refuses a signed body that is not a notification with a 400', () => {
    for (const [body, code] of [
      ['not json', '4002600'],
      ['[1]', '4002600'],
      [notificationBody('09'), '4002601'],
      ['{"originalPartnerReferenceNo":"O","latestTransactionStatus":"00"}', '4002602'],
      [notificationBody('00', 'R', { amount: { value: 10000, currency: 'IDR' } }), '4002601'],
    ] as const) {
      assert.throws(() => verifyCallback(request(body, signedHeaders(body, { nowMs: NOW })), opts), {
        responseCode: code,
      });
    }
  });

  it('verifies rsa-sha256 callbacks with the gateway public key (PEM or KeyObject)', () => {
    const { privateKey, publicKey } = generateKeyPairSync('rsa', { modulusLength: 2048 });
    const body = notificationBody('00');
    const timestamp = formatJakartaTimestamp(NOW);
    const headers = {
      'x-timestamp': timestamp,
      'x-partner-id': PARTNER,
      'x-signature': rsaSha256SignBase64(
        privateKey,
        callbackRsaStringToSign({ path: QR_PATH, rawBody: body, timestamp }),
      ),
    };
    const pem = publicKey.export({ type: 'spki', format: 'pem' }).toString();
    const rsa = { gatewayPublicKeyPem: pem, partnerId: PARTNER, now: NOW };
    assert.equal(verifyCallback(request(body, headers), rsa).latestTransactionStatus, '00');
    assert.ok(verifyCallback(request(body, headers), { ...rsa, gatewayPublicKeyPem: publicKey }));
    assert.throws(() => verifyCallback(request(body.replace('SITI', 'BUDI'), headers), rsa), {
      responseCode: '4012600',
    });
    // An HMAC signature is not accepted where RSA is expected.
    assert.throws(() => verifyCallback(request(body, signedHeaders(body, { nowMs: NOW })), rsa), {
      responseMessage: 'Unauthorized. [Invalid Signature]',
    });
  });

  it('reads headers from a WHATWG Headers object and from records in any case', () => {
    const body = notificationBody('00');
    const h = signedHeaders(body, { nowMs: NOW });
    assert.ok(verifyCallback({ ...request(body, {}), headers: new Headers(h) }, opts));
    const upper = Object.fromEntries(Object.entries(h).map(([k, v]) => [k.toUpperCase(), v]));
    assert.ok(verifyCallback(request(body, upper), opts));
    assert.equal(headerValue({ 'x-a': ['1', '2'] }, 'X-A'), '1');
    assert.equal(headerValue({}, 'x-a'), undefined);
  });

  it('refuses options with both or neither key', () => {
    const body = notificationBody('00');
    assert.throws(() => verifyCallback(request(body, {}), { partnerId: PARTNER } as never), TypeError);
  });
});

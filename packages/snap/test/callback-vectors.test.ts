import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import {
  bodyDigest,
  callbackHmacStringToSign,
  callbackRsaStringToSign,
  hmacSha512Base64,
  phpJsonEncode,
  serviceStringToSign,
  tokenStringToSign,
} from '../src/index.ts';

// The worked example of docs/callbacks.md: every value printed there is checked here.
const notification = {
  originalReferenceNo: '261123000000000001',
  originalPartnerReferenceNo: 'INV/2026/001',
  latestTransactionStatus: '00',
  amount: { value: '25000.00', currency: 'IDR' },
  additionalInfo: {
    payerIssuer: '93600009',
    payerName: 'Siti Ñ',
    payerRefId: '123456789012',
    billNumber: 123456789012,
    transactionDate: '2026-11-23T10:00:00+07:00',
    feeAmount: { value: '0.00', currency: 'IDR' },
  },
};
const secret = 'merchant-secret';
const path = '/webhook/payment-qr-notification';
const timestamp = '2026-11-23T10:00:05+07:00';
const standard = JSON.stringify(notification);
const STANDARD_HASH = 'ccbae50ec80324e9049d1ddb63880e2f3b359fa599a824d7145df229556552e9';

describe('the callback vectors of docs/callbacks.md', () => {
  it('hmac-sha512 over the standard bytes', () => {
    assert.equal(bodyDigest(standard), STANDARD_HASH);
    const data = callbackHmacStringToSign({ path, partnerId: 'P1', rawBody: standard, timestamp });
    assert.equal(data, `POST:${path}:P1:${STANDARD_HASH}:${timestamp}`);
    assert.equal(
      hmacSha512Base64(secret, data),
      '4pQl62VjOmIxc8AsRG8z+pIb0WkhARO2hiCkZo/bAU77NSV8vMNgQBAaAE9hucJSmdov31SWYzGdNvdTc7/Hzw==',
    );
  });

  it('hmac-sha512 over the PHP json_encode bytes', () => {
    const php = phpJsonEncode(notification);
    assert.match(php, /"INV\\\/2026\\\/001"/);
    assert.match(php, /"Siti \\u00d1"/);
    assert.equal(bodyDigest(php), 'b65344ee167f8562feab426c68bc02a00acec89336cd89ad73a79ffb5ac66694');
    const data = callbackHmacStringToSign({ path, partnerId: 'P1', rawBody: php, timestamp });
    assert.equal(
      hmacSha512Base64(secret, data),
      'GMguo9U9TRSYtSTc1t0yyyvpwD/dA3UIDJhHIFyjT0zQGAxsSohiKUp/QBUT3Edpnmv+8DPCkPufXCpFJo0JLQ==',
    );
  });

  it('the rsa-sha256 string to sign', () => {
    assert.equal(
      callbackRsaStringToSign({ path, rawBody: standard, timestamp }),
      `POST:${path}:${STANDARD_HASH}:${timestamp}`,
    );
  });

  it('snap-b2b: the token request and the token-bound callback signature', () => {
    assert.equal(tokenStringToSign('CK-1', timestamp), `CK-1|${timestamp}`);
    const data = serviceStringToSign({ method: 'POST', path, accessToken: 'tok-4f1c9a', rawBody: standard, timestamp });
    assert.equal(data, `POST:${path}:tok-4f1c9a:${STANDARD_HASH}:${timestamp}`);
    assert.equal(
      hmacSha512Base64(secret, data),
      'b5y7GE91HjWGnYyWMaRwkTts+Vn95l9m0WGMltnau1tOR0GhUZDwJSiFfS1wFiFmtNOQdhPUlJEQsHzlIPHFag==',
    );
  });
});

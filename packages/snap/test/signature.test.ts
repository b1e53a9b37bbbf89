import assert from 'node:assert/strict';
import { generateKeyPairSync } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { describe, it } from 'node:test';
import {
  bodyDigest,
  callbackHmacStringToSign,
  callbackRsaStringToSign,
  hmacSha256Base64,
  hmacSha512Base64,
  phpJsonEncode,
  rsaSha256SignBase64,
  serviceStringToSign,
  tokenStringToSign,
  verifyHmacSha256,
  verifyHmacSha512,
  verifyRsaSha256,
} from '../src/index.ts';

type Vector = {
  name: string;
  secret: string;
  method: string;
  path: string;
  accessToken: string;
  timestamp: string;
  body: string;
  signature: string;
};
const vectors = JSON.parse(
  readFileSync(new URL('./vectors/service-signature.json', import.meta.url), 'utf8'),
) as Vector[];

describe('payment API signature', () => {
  for (const v of vectors) {
    it(`matches the fixed vector: ${v.name}`, () => {
      const data = serviceStringToSign({
        method: v.method,
        path: v.path,
        accessToken: v.accessToken,
        rawBody: Buffer.from(v.body),
        timestamp: v.timestamp,
      });
      assert.equal(hmacSha512Base64(v.secret, data), v.signature);
      assert.equal(verifyHmacSha512(v.secret, data, v.signature), true);
    });
  }

  it('matches the bank token vector of docs/upstream.md', () => {
    const data = tokenStringToSign('bank-client-key', '2026-11-23T10:00:00+07:00');
    assert.equal(data, 'bank-client-key|2026-11-23T10:00:00+07:00');
    assert.equal(hmacSha256Base64('bank-secret', data), 'Ct+Emgk6nAbjxrIFRXxseUMSix/j2AGfsAZs4d5Op1k=');
  });

  it('builds METHOD:path:token:bodyhash:timestamp with an upper-case method', () => {
    const data = serviceStringToSign({
      method: 'post',
      path: '/a?b=1',
      accessToken: 't',
      rawBody: '',
      timestamp: 'ts',
    });
    assert.equal(data, 'POST:/a?b=1:t:e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855:ts');
  });

  it('takes the body hash the caller already computed instead of hashing the body again', () => {
    const parts = { method: 'POST', path: '/p', accessToken: 't', rawBody: '{"a":1}', timestamp: 'ts' };
    const data = serviceStringToSign(parts);
    assert.equal(serviceStringToSign({ ...parts, bodyHash: bodyDigest('{"a":1}') }), data);
    // The given hash is what is signed (the body is not hashed at all).
    assert.equal(serviceStringToSign({ ...parts, bodyHash: 'given' }), 'POST:/p:t:given:ts');
  });

  it('hashes the raw bytes, so a PHP body with \\/ signs differently from its re-serialisation', () => {
    const php = Buffer.from('{"url":"https:\\/\\/x"}');
    const js = Buffer.from(JSON.stringify(JSON.parse(php.toString())));
    assert.notEqual(bodyDigest(php), bodyDigest(js));
  });

  it('rejects a signature that differs in one byte, a truncated one and non-base64 text', () => {
    const data = 'x';
    const good = hmacSha512Base64('s', data);
    const flipped = `${good[0] === 'A' ? 'B' : 'A'}${good.slice(1)}`;
    assert.equal(verifyHmacSha512('s', data, flipped), false);
    assert.equal(verifyHmacSha512('s', data, good.slice(0, -4)), false);
    assert.equal(verifyHmacSha512('s', data, '!!!!'), false);
    assert.equal(verifyHmacSha512('s', data, ''), false);
  });
});

describe('token signature', () => {
  it('signs <clientKey>|<timestamp> with HMAC-SHA256 (fixed vector)', () => {
    const data = tokenStringToSign('ck-1', '2024-01-01T10:00:00+07:00');
    assert.equal(data, 'ck-1|2024-01-01T10:00:00+07:00');
    assert.equal(hmacSha256Base64('secret', data), 'hiDXFc90i5BnchnYwa7wtiLNdkvAb8YIQ3h8K4JI5ss=');
    assert.equal(verifyHmacSha256('secret', data, 'hiDXFc90i5BnchnYwa7wtiLNdkvAb8YIQ3h8K4JI5ss='), true);
    assert.equal(verifyHmacSha256('other', data, 'hiDXFc90i5BnchnYwa7wtiLNdkvAb8YIQ3h8K4JI5ss='), false);
  });

  it('signs and verifies SHA256withRSA; another key fails', () => {
    const a = generateKeyPairSync('rsa', { modulusLength: 2048 });
    const b = generateKeyPairSync('rsa', { modulusLength: 2048 });
    const data = tokenStringToSign('ck', '2024-01-01T03:00:00.123Z');
    const sig = rsaSha256SignBase64(a.privateKey, data);
    assert.equal(verifyRsaSha256(a.publicKey, data, sig), true);
    assert.equal(verifyRsaSha256(b.publicKey, data, sig), false);
    assert.equal(verifyRsaSha256(a.publicKey, `${data}x`, sig), false);
    assert.equal(verifyRsaSha256(a.publicKey, data, 'not base64!'), false);
  });
});

describe('callback string-to-sign', () => {
  it('HMAC variant includes the partner ID; RSA variant does not', () => {
    const parts = { path: '/webhook/payment-qr-notification', partnerId: 'P1', rawBody: '{}', timestamp: 'T' };
    const h = bodyDigest('{}');
    assert.equal(callbackHmacStringToSign(parts), `POST:/webhook/payment-qr-notification:P1:${h}:T`);
    assert.equal(callbackRsaStringToSign(parts), `POST:/webhook/payment-qr-notification:${h}:T`);
  });

  it('takes the body hash the caller already computed', () => {
    const parts = { path: '/w', partnerId: 'P1', rawBody: '{}', timestamp: 'T', bodyHash: 'given' };
    assert.equal(callbackHmacStringToSign(parts), 'POST:/w:P1:given:T');
    assert.equal(callbackRsaStringToSign(parts), 'POST:/w:given:T');
  });
});

describe('PHP json_encode bytes', () => {
  it('escapes / and every non-ASCII character as PHP does (bytes checked against php 8.2)', () => {
    const value = {
      a: 'https://x.example/p?q=1',
      n: 'Budi Café 日本 😀',
      e: '',
      c: 'tab\tnl\nq"bs\\ del\u007f',
      i: 123456789012,
      o: { v: '10000.00' },
    };
    assert.equal(
      phpJsonEncode(value),
      '{"a":"https:\\/\\/x.example\\/p?q=1","n":"Budi Caf\\u00e9 \\u65e5\\u672c \\ud83d\\ude00","e":"","c":"tab\\tnl\\nq\\"bs\\\\ del\u007f","i":123456789012,"o":{"v":"10000.00"}}',
    );
  });
});

import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { bodyDigest, hmacSha512Base64, isSnapError } from '@snapgate/snap';
import { SnapNetworkError } from '../src/errors.ts';
import { createSnapClient, newExternalId } from '../src/snap-client.ts';
import { fakeFetch, json, manualClock } from './helpers.ts';

const T0 = Date.parse('2024-01-01T03:00:00Z'); // 2024-01-01T10:00:00+07:00
const fixedToken = (token = 'tok123') => ({ getToken: async () => token });
const success = (code: string, extra: Record<string, unknown> = {}) =>
  json(200, { responseCode: code, responseMessage: 'Successful', ...extra });

function client(respond: Parameters<typeof fakeFetch>[0], extra: Partial<Parameters<typeof createSnapClient>[0]> = {}) {
  const f = fakeFetch(respond);
  const snap = createSnapClient({
    baseUrl: 'http://gw.test',
    partnerId: 'P-1',
    clientSecret: 'secret',
    tokenClient: fixedToken(),
    fetch: f.fetch,
    clock: manualClock(T0),
    retryDelayMs: 0,
    ...extra,
  });
  return { snap, calls: f.calls };
}

describe('createSnapClient', () => {
  it('signs the documented payment-call test vector exactly', async () => {
    const { snap, calls } = client(() => success('2004700', { referenceNo: 'R1' }));
    const r = await snap.generateQris({ partnerReferenceNo: 'REF1', amount: { value: '10000.00', currency: 'IDR' } });
    assert.equal(r.referenceNo, 'R1');
    const [c] = calls;
    assert.ok(c);
    assert.equal(c.url, 'http://gw.test/api/snap/v1.0/qr/qr-mpm-generate');
    assert.equal(c.method, 'POST');
    assert.equal(c.body, '{"partnerReferenceNo":"REF1","amount":{"value":"10000.00","currency":"IDR"}}');
    assert.equal(c.headers['x-timestamp'], '2024-01-01T10:00:00+07:00');
    assert.equal(
      c.headers['x-signature'],
      '3ZBI/QID9VO1wkL3BuAeRxP+7s7c0uRSwCMOvHNvmH8I7kD8ERZBOmiIl+gW3zqMiWZtoe5utYkGoBxCGxUyew==',
    );
    assert.equal(c.headers.authorization, 'Bearer tok123');
    assert.equal(c.headers['content-type'], 'application/json');
    assert.equal(c.headers['x-partner-id'], 'P-1');
    assert.equal(c.headers['channel-id'], '95221');
    assert.match(c.headers['x-external-id'] as string, /^\d{22}$/);
  });

  it('uses the right method, path and service code for every operation', async () => {
    const seen: string[] = [];
    const { snap, calls } = client((r) => {
      seen.push(`${r.method} ${new URL(r.url).pathname}`);
      return success('2000000');
    });
    await snap.generateQris({ partnerReferenceNo: 'A', amount: { value: '1.00', currency: 'IDR' } });
    await snap.queryQris({ originalPartnerReferenceNo: 'A' });
    await snap.cancelQris({ originalPartnerReferenceNo: 'A', reason: 'r' });
    await snap.refundQris({
      originalPartnerReferenceNo: 'A',
      partnerRefundNo: 'RF',
      refundAmount: { value: '1.00', currency: 'IDR' },
    });
    await snap.createVa({ virtualAccountName: 'N', trxId: 'T', totalAmount: { value: '1.00', currency: 'IDR' } });
    await snap.inquiryVa({ virtualAccountNo: 'V' });
    await snap.vaStatus({ virtualAccountNo: 'V' });
    await snap.updateVa({ virtualAccountNo: 'V', virtualAccountName: 'M' });
    await snap.deleteVa({ virtualAccountNo: 'V', trxId: 'T' });
    assert.deepEqual(seen, [
      'POST /api/snap/v1.0/qr/qr-mpm-generate',
      'POST /api/snap/v1.0/qr/qr-mpm-query',
      'POST /api/snap/v1.0/qr/qr-mpm-cancel',
      'POST /api/snap/v1.0/qr/qr-mpm-refund',
      'POST /api/snap/v1.0/transfer-va/create-va',
      'POST /api/snap/v1.0/transfer-va/inquiry-va',
      'POST /api/snap/v1.0/transfer-va/status',
      'PUT /api/snap/v1.0/transfer-va/update-va',
      'DELETE /api/snap/v1.0/transfer-va/delete-va',
    ]);
    assert.deepEqual(JSON.parse(calls[1]?.body as string), { originalPartnerReferenceNo: 'A', serviceCode: '47' });
    const ids = new Set(calls.map((c) => c.headers['x-external-id']));
    assert.equal(ids.size, 9, 'a fresh X-EXTERNAL-ID per call');
    // The DELETE's signature covers its method and body.
    const del = calls[8];
    assert.ok(del);
    const data = `DELETE:/api/snap/v1.0/transfer-va/delete-va:tok123:${bodyDigest(del.body)}:${del.headers['x-timestamp']}`;
    assert.equal(del.headers['x-signature'], hmacSha512Base64('secret', data));
  });

  it('signs the full target when the base URL has a path prefix', async () => {
    const { snap, calls } = client(() => success('2005100'), { baseUrl: 'http://gw.test/gateway/' });
    await snap.queryQris({ originalReferenceNo: 'R' });
    const c = calls[0];
    assert.ok(c);
    assert.equal(c.url, 'http://gw.test/gateway/api/snap/v1.0/qr/qr-mpm-query');
    const data = `POST:/gateway/api/snap/v1.0/qr/qr-mpm-query:tok123:${bodyDigest(c.body)}:${c.headers['x-timestamp']}`;
    assert.equal(c.headers['x-signature'], hmacSha512Base64('secret', data));
  });

  it('retries a network failure with the same X-EXTERNAL-ID and the same body bytes', async () => {
    const { snap, calls } = client((_r, n) => {
      if (n < 3) throw new TypeError('fetch failed');
      return success('2004700', { referenceNo: 'R9' });
    });
    const r = await snap.generateQris({ partnerReferenceNo: 'X', amount: { value: '5.00', currency: 'IDR' } });
    assert.equal(r.referenceNo, 'R9');
    assert.equal(calls.length, 3);
    assert.equal(new Set(calls.map((c) => c.headers['x-external-id'])).size, 1);
    assert.equal(new Set(calls.map((c) => c.body)).size, 1);
  });

  it('gives up after `retries` network failures with the network error', async () => {
    const { snap, calls } = client(
      () => {
        throw new TypeError('fetch failed');
      },
      { retries: 1 },
    );
    await assert.rejects(snap.queryQris({ originalReferenceNo: 'R' }), (e: unknown) => {
      assert.ok(e instanceof SnapNetworkError);
      assert.equal(e.timedOut, false);
      assert.match(e.message, /^POST http:\/\/gw\.test\/api\/snap\/v1\.0\/qr\/qr-mpm-query: no answer$/);
      assert.match(String((e.cause as Error).message), /fetch failed/);
      return true;
    });
    assert.equal(calls.length, 2);
  });

  it("never retries an HTTP answer: a non-2xx throws the gateway's SNAP error", async () => {
    const { snap, calls } = client(() =>
      json(404, { responseCode: '4045101', responseMessage: 'Transaction Not Found' }),
    );
    await assert.rejects(snap.queryQris({ originalReferenceNo: 'nope' }), {
      name: 'SnapApiError',
      responseCode: '4045101',
      responseMessage: 'Transaction Not Found',
      httpStatus: 404,
    });
    assert.equal(calls.length, 1);
    const { snap: snap500, calls: calls500 } = client(() =>
      json(500, { responseCode: '5004700', responseMessage: 'General Error' }),
    );
    const e = await snap500
      .generateQris({ partnerReferenceNo: 'A', amount: { value: '1.00', currency: 'IDR' } })
      .catch((x: unknown) => x);
    assert.equal(isSnapError(e), true);
    assert.equal(calls500.length, 1);
  });

  it('takes a new token once when the gateway refuses one, with the same X-EXTERNAL-ID', async () => {
    let n = 0;
    let invalidated = 0;
    const tokenClient = {
      getToken: async () => `tok-${++n}`,
      invalidate: () => {
        invalidated++;
      },
    };
    const { snap, calls } = client(
      (r) =>
        r.headers.authorization === 'Bearer tok-1'
          ? json(401, { responseCode: '4015101', responseMessage: 'Invalid Token (B2B)' })
          : success('2005100'),
      { tokenClient },
    );
    await snap.queryQris({ originalReferenceNo: 'R' });
    assert.equal(invalidated, 1);
    assert.equal(calls.length, 2);
    assert.equal(calls[0]?.headers['x-external-id'], calls[1]?.headers['x-external-id']);
    const { snap: always401 } = client(
      () => json(401, { responseCode: '4015101', responseMessage: 'Invalid Token (B2B)' }),
      { tokenClient },
    );
    await assert.rejects(always401.queryQris({ originalReferenceNo: 'R' }), { responseCode: '4015101' });
  });

  it('uses a given X-EXTERNAL-ID and refuses one that is not 1 to 36 digits', async () => {
    const { snap, calls } = client(() => success('2005100'));
    await snap.queryQris({ originalReferenceNo: 'R' }, { externalId: '123456' });
    assert.equal(calls[0]?.headers['x-external-id'], '123456');
    await assert.rejects(snap.queryQris({ originalReferenceNo: 'R' }, { externalId: 'abc' }), TypeError);
    await assert.rejects(snap.queryQris({ originalReferenceNo: 'R' }, { externalId: '1'.repeat(37) }), TypeError);
  });

  it('makes numeric external ids of 22 digits', () => {
    assert.match(newExternalId(T0), /^1704078000000\d{9}$/);
  });
});

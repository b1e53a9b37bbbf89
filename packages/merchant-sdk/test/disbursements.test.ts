import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { bodyDigest, hmacSha512Base64 } from '@snapgate/snap';
import { SnapApiError } from '../src/errors.ts';
import { createSnapClient } from '../src/snap-client.ts';
import { fakeFetch, json, manualClock, type Recorded } from './helpers.ts';

// docs/protocol.md#disbursements: account inquiry (16), transfer (18) and transfer status (36),
// signed and sent as every payment call; a transfer's 202 Request In Progress is an answer.

const T0 = Date.parse('2024-01-01T03:00:00Z'); // 2024-01-01T10:00:00+07:00
const idr = (value: string) => ({ value, currency: 'IDR' });

function client(respond: Parameters<typeof fakeFetch>[0], extra: Partial<Parameters<typeof createSnapClient>[0]> = {}) {
  const f = fakeFetch(respond);
  const snap = createSnapClient({
    baseUrl: 'http://gw.test',
    partnerId: 'P-1',
    clientSecret: 'secret',
    tokenClient: { getToken: async () => 'tok123' },
    fetch: f.fetch,
    clock: manualClock(T0),
    retryDelayMs: 0,
    ...extra,
  });
  return { snap, calls: f.calls };
}

/** The signature a gateway expects over what was sent (docs/protocol.md#payment-call-signature). */
function expectedSignature(c: Recorded): string {
  const path = new URL(c.url).pathname;
  return hmacSha512Base64('secret', `${c.method}:${path}:tok123:${bodyDigest(c.body)}:${c.headers['x-timestamp']}`);
}

// The documented examples (docs/protocol.md#disbursements), as compact bytes.
const INQUIRY = '{"beneficiaryBankCode":"014","beneficiaryAccountNo":"1234567890","partnerReferenceNo":"INQ-1"}';
const TRANSFER =
  '{"partnerReferenceNo":"PAY-SUPPLIER-88","amount":{"value":"1500000.00","currency":"IDR"},' +
  '"beneficiaryAccountName":"CV Sumber Rejeki","beneficiaryAccountNo":"1234567890","beneficiaryBankCode":"014",' +
  '"transactionDate":"2026-01-15T10:30:00+07:00","remark":"invoice 88","additionalInfo":{"batch":"B-1"}}';
const STATUS = '{"originalPartnerReferenceNo":"PAY-SUPPLIER-88","serviceCode":"18"}';

const transferAnswer = {
  referenceNo: 'PO7F3C9A1E2B4D4C6F8A0B1C2D3E4F5A6B',
  partnerReferenceNo: 'PAY-SUPPLIER-88',
  amount: idr('1500000.00'),
  beneficiaryAccountNo: '1234567890',
  beneficiaryBankCode: '014',
  transactionDate: '2026-01-15T10:31:02+07:00',
  additionalInfo: { batch: 'B-1' },
};

describe('disbursement calls', () => {
  it('accountInquiry: POST account-inquiry-external with exactly the given body, signed, and its answer', async () => {
    const answer = {
      responseCode: '2001600',
      responseMessage: 'Successful',
      partnerReferenceNo: 'INQ-1',
      beneficiaryAccountName: 'SANDBOX 7890',
      beneficiaryAccountNo: '1234567890',
      beneficiaryBankCode: '014',
      currency: 'IDR',
    };
    const { snap, calls } = client(() => json(200, answer));
    const r = await snap.accountInquiry({
      beneficiaryBankCode: '014',
      beneficiaryAccountNo: '1234567890',
      partnerReferenceNo: 'INQ-1',
    });
    assert.deepEqual(r, answer);
    const [c] = calls;
    assert.ok(c);
    assert.equal(calls.length, 1);
    assert.equal(c.method, 'POST');
    assert.equal(c.url, 'http://gw.test/api/snap/v1.0/account-inquiry-external');
    assert.equal(c.body, INQUIRY);
    assert.equal(c.headers['x-timestamp'], '2024-01-01T10:00:00+07:00');
    assert.equal(c.headers['x-signature'], expectedSignature(c));
    assert.equal(c.headers.authorization, 'Bearer tok123');
    assert.equal(c.headers['x-partner-id'], 'P-1');
    assert.equal(c.headers['channel-id'], '95221');
    assert.match(c.headers['x-external-id'] as string, /^\d{22}$/);
  });

  it('transfer: POST transfer-interbank with exactly the given body, and a paid 200 2001800 answer', async () => {
    const answer = { responseCode: '2001800', responseMessage: 'Successful', ...transferAnswer };
    const { snap, calls } = client(() => json(200, answer));
    const r = await snap.transfer({
      partnerReferenceNo: 'PAY-SUPPLIER-88',
      amount: idr('1500000.00'),
      beneficiaryAccountName: 'CV Sumber Rejeki',
      beneficiaryAccountNo: '1234567890',
      beneficiaryBankCode: '014',
      transactionDate: '2026-01-15T10:30:00+07:00',
      remark: 'invoice 88',
      additionalInfo: { batch: 'B-1' },
    });
    assert.deepEqual(r, answer);
    const [c] = calls;
    assert.ok(c);
    assert.equal(c.method, 'POST');
    assert.equal(c.url, 'http://gw.test/api/snap/v1.0/transfer-interbank');
    assert.equal(c.body, TRANSFER);
    assert.equal(c.headers['x-signature'], expectedSignature(c));
  });

  it('transfer: returns a pending 202 2021800 Request In Progress, never throws it, never repeats it', async () => {
    const answer = { responseCode: '2021800', responseMessage: 'Request In Progress', ...transferAnswer };
    const { snap, calls } = client(() => json(202, answer));
    const r = await snap.transfer(JSON.parse(TRANSFER));
    assert.equal(r.responseCode, '2021800');
    assert.equal(r.responseMessage, 'Request In Progress');
    assert.equal(r.referenceNo, transferAnswer.referenceNo);
    assert.deepEqual(r, answer);
    assert.equal(calls.length, 1);
  });

  it('transferStatus: POST transfer/status with serviceCode 18 by default, a given one kept, and its answer', async () => {
    const answer = {
      responseCode: '2003600',
      responseMessage: 'Successful',
      originalReferenceNo: transferAnswer.referenceNo,
      originalPartnerReferenceNo: 'PAY-SUPPLIER-88',
      serviceCode: '18',
      amount: idr('1500000.00'),
      beneficiaryAccountNo: '1234567890',
      beneficiaryBankCode: '014',
      referenceNumber: 'SB1A2B3C4D5E6F',
      latestTransactionStatus: '00',
      transactionStatusDesc: 'Success',
    };
    const { snap, calls } = client(() => json(200, answer));
    const r = await snap.transferStatus({ originalPartnerReferenceNo: 'PAY-SUPPLIER-88' });
    assert.deepEqual(r, answer);
    assert.equal(r.latestTransactionStatus, '00');
    await snap.transferStatus({
      originalPartnerReferenceNo: 'PAY-SUPPLIER-88',
      serviceCode: '17',
      originalReferenceNo: transferAnswer.referenceNo,
    });
    const [first, second] = calls;
    assert.ok(first && second);
    assert.equal(first.method, 'POST');
    assert.equal(first.url, 'http://gw.test/api/snap/v1.0/transfer/status');
    assert.equal(first.body, STATUS);
    assert.equal(first.headers['x-signature'], expectedSignature(first));
    assert.equal(
      second.body,
      `{"originalPartnerReferenceNo":"PAY-SUPPLIER-88","serviceCode":"17","originalReferenceNo":"${transferAnswer.referenceNo}"}`,
    );
    assert.notEqual(first.headers['x-external-id'], second.headers['x-external-id'], 'a fresh X-EXTERNAL-ID per call');
  });

  it('throws every refusal as a SnapApiError with the gateway’s code, as the other calls do', async () => {
    const inquiry = JSON.parse(INQUIRY);
    const transfer = JSON.parse(TRANSFER);
    const status = { originalPartnerReferenceNo: 'NEVER' };
    const cases: Array<[number, string, string, (snap: ReturnType<typeof client>['snap']) => Promise<unknown>]> = [
      [404, '4041611', 'Invalid Account', (snap) => snap.accountInquiry(inquiry)],
      [403, '4031601', 'Feature Not Allowed', (snap) => snap.accountInquiry(inquiry)],
      [403, '4031814', 'Insufficient Funds', (snap) => snap.transfer(transfer)],
      [403, '4031802', 'Exceeds Transaction Amount Limit', (snap) => snap.transfer(transfer)],
      [404, '4041811', 'Invalid Account', (snap) => snap.transfer(transfer)],
      [409, '4091801', 'Duplicate partnerReferenceNo', (snap) => snap.transfer(transfer)],
      [403, '4031801', 'Feature Not Allowed', (snap) => snap.transfer(transfer)],
      [404, '4043601', 'Transaction Not Found', (snap) => snap.transferStatus(status)],
    ];
    for (const [httpStatus, responseCode, responseMessage, call] of cases) {
      const { snap, calls } = client(() => json(httpStatus, { responseCode, responseMessage }));
      await assert.rejects(call(snap), (e: unknown) => {
        assert.ok(e instanceof SnapApiError, responseCode);
        assert.deepEqual(
          [e.httpStatus, e.responseCode, e.responseMessage],
          [httpStatus, responseCode, responseMessage],
        );
        assert.deepEqual(e.body, { responseCode, responseMessage });
        return true;
      });
      assert.equal(calls.length, 1, `${responseCode}: an HTTP answer is never retried`);
    }
  });

  it('throws a 2xx answer that is not a SNAP success: a refusal code, or no SNAP body at all', async () => {
    const refusedIn200 = client(() => json(200, { responseCode: '4031814', responseMessage: 'Insufficient Funds' }));
    await assert.rejects(refusedIn200.snap.transfer(JSON.parse(TRANSFER)), { responseCode: '4031814' });
    // An empty 202 (a proxy's, say) says nothing of the transfer: not taken for pending.
    const empty = client(() => new Response('', { status: 202 }));
    await assert.rejects(empty.snap.transfer(JSON.parse(TRANSFER)), {
      name: 'SnapApiError',
      responseCode: '5001800',
      responseMessage: 'Unexpected Response',
    });
  });

  it('retries a lost transfer answer with the same X-EXTERNAL-ID and body bytes, and returns the pending answer', async () => {
    const { snap, calls } = client((_r, n) => {
      if (n === 1) throw new TypeError('fetch failed');
      return json(202, { responseCode: '2021800', responseMessage: 'Request In Progress', ...transferAnswer });
    });
    const r = await snap.transfer(JSON.parse(TRANSFER), { externalId: '17040780000001234567' });
    assert.equal(r.responseCode, '2021800');
    assert.equal(calls.length, 2);
    assert.deepEqual(
      calls.map((c) => c.headers['x-external-id']),
      ['17040780000001234567', '17040780000001234567'],
    );
    assert.deepEqual(
      calls.map((c) => c.body),
      [TRANSFER, TRANSFER],
    );
  });

  it('takes a new token once when a transfer is refused 4011801, with the same X-EXTERNAL-ID', async () => {
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
          ? json(401, { responseCode: '4011801', responseMessage: 'Invalid Token (B2B)' })
          : json(200, { responseCode: '2001800', responseMessage: 'Successful', ...transferAnswer }),
      { tokenClient },
    );
    assert.equal((await snap.transfer(JSON.parse(TRANSFER))).responseCode, '2001800');
    assert.equal(invalidated, 1);
    assert.equal(calls.length, 2);
    assert.equal(calls[0]?.headers['x-external-id'], calls[1]?.headers['x-external-id']);
  });
});

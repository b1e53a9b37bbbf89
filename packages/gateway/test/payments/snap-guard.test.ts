import assert from 'node:assert/strict';
import { createHash, createHmac, randomUUID } from 'node:crypto';
import { after, before, describe, it } from 'node:test';
import { formatJakartaTimestamp } from '@snapgate/snap';
import { startGateway, type TestGateway, type TestMerchant } from '../helpers/gateway.ts';
import { authenticate, newExternalId, type SnapCaller, send, snapCall } from '../helpers/snap.ts';

const GENERATE = '/api/snap/v1.0/qr/qr-mpm-generate';
const snap = (responseCode: string, responseMessage: string) => ({ responseCode, responseMessage });
const order = (ref: string, value = '10000.00') => ({ partnerReferenceNo: ref, amount: { value, currency: 'IDR' } });
let refs = 0;
const ref = () => `ORD-${Date.now()}-${++refs}`;

describe('the SNAP guard (check order, docs/protocol.md#payment-calls)', () => {
  let gw: TestGateway;
  let m: TestMerchant;
  let c: SnapCaller;
  before(async () => {
    gw = await startGateway({ env: { SNAPGATE_RATE_LIMIT: 'off' } });
    m = await gw.createMerchant({ partnerId: 'PARTNER-GUARD' });
    c = await authenticate(gw.url, m);
  });
  after(() => gw.close());

  it('accepts a correctly signed request', async () => {
    const r = await snapCall(gw.url, c, GENERATE, order(ref()));
    assert.equal(r.status, 200, r.text);
    assert.equal(r.body.responseCode, '2004700');
  });

  const cases: Array<
    [
      string,
      () => Parameters<typeof snapCall>[4] & { caller?: SnapCaller; body?: unknown },
      number,
      ReturnType<typeof snap>,
    ]
  > = [
    [
      'no Authorization',
      () => ({ headers: { authorization: undefined } }),
      401,
      snap('4014701', 'Invalid Token (B2B)'),
    ],
    [
      'a malformed token',
      () => ({ headers: { authorization: 'Bearer abc.def' } }),
      401,
      snap('4014701', 'Invalid Token (B2B)'),
    ],
    [
      'a token signed by someone else',
      () => ({ headers: { authorization: `Bearer ${c.accessToken.slice(0, -3)}AAA` } }),
      401,
      snap('4014701', 'Invalid Token (B2B)'),
    ],
    [
      'a Basic Authorization',
      () => ({ headers: { authorization: 'Basic abc' } }),
      401,
      snap('4014701', 'Invalid Token (B2B)'),
    ],
    [
      'X-TIMESTAMP missing',
      () => ({ headers: { 'x-timestamp': undefined } }),
      400,
      snap('4004702', 'Invalid Mandatory Field {X-TIMESTAMP}'),
    ],
    [
      'X-SIGNATURE missing',
      () => ({ headers: { 'x-signature': undefined } }),
      400,
      snap('4004702', 'Invalid Mandatory Field {X-SIGNATURE}'),
    ],
    [
      'X-PARTNER-ID missing',
      () => ({ headers: { 'x-partner-id': undefined } }),
      400,
      snap('4004702', 'Invalid Mandatory Field {X-PARTNER-ID}'),
    ],
    [
      'X-EXTERNAL-ID missing',
      () => ({ headers: { 'x-external-id': undefined } }),
      400,
      snap('4004702', 'Invalid Mandatory Field {X-EXTERNAL-ID}'),
    ],
    [
      'CHANNEL-ID missing',
      () => ({ headers: { 'channel-id': undefined } }),
      400,
      snap('4004702', 'Invalid Mandatory Field {CHANNEL-ID}'),
    ],
    [
      'Content-Type missing',
      () => ({ headers: { 'content-type': undefined } }),
      400,
      snap('4004702', 'Invalid Mandatory Field {Content-Type}'),
    ],
    [
      'Content-Type text/plain',
      () => ({ headers: { 'content-type': 'text/plain' } }),
      400,
      snap('4004701', 'Invalid Field Format {Content-Type}'),
    ],
    [
      'X-TIMESTAMP not ISO 8601',
      () => ({ timestamp: '2026/11/21 10:00:00' }),
      400,
      snap('4004701', 'Invalid Field Format {X-TIMESTAMP}'),
    ],
    [
      'X-EXTERNAL-ID with a space',
      () => ({ externalId: 'abc 123' }),
      400,
      snap('4004701', 'Invalid Field Format {X-EXTERNAL-ID}'),
    ],
    [
      'X-EXTERNAL-ID with an underscore',
      () => ({ externalId: 'abc_123' }),
      400,
      snap('4004701', 'Invalid Field Format {X-EXTERNAL-ID}'),
    ],
    [
      'X-EXTERNAL-ID of 65 characters',
      () => ({ externalId: 'a'.repeat(65) }),
      400,
      snap('4004701', 'Invalid Field Format {X-EXTERNAL-ID}'),
    ],
    [
      'CHANNEL-ID of 6 characters',
      () => ({ headers: { 'channel-id': '123456' } }),
      400,
      snap('4004701', 'Invalid Field Format {CHANNEL-ID}'),
    ],
    [
      'a timestamp 6 minutes old',
      () => ({ timestamp: formatJakartaTimestamp(Date.now() - 360_000) }),
      401,
      snap('4014700', 'Unauthorized. [Timestamp Out Of Range]'),
    ],
    [
      'another merchant’s X-PARTNER-ID',
      () => ({ headers: { 'x-partner-id': 'SOMEONE-ELSE' } }),
      401,
      snap('4014700', 'Unauthorized. [Unknown Partner]'),
    ],
    [
      'a signature by another secret',
      () => ({ secret: 'not-the-secret' }),
      401,
      snap('4014700', 'Unauthorized. [Invalid Signature]'),
    ],
    [
      'a body changed after signing',
      () => ({ signBody: JSON.stringify(order('SIGNED')) }),
      401,
      snap('4014700', 'Unauthorized. [Invalid Signature]'),
    ],
    ['a body that is not JSON', () => ({ body: 'partnerReferenceNo=1' }), 400, snap('4004700', 'Bad Request')],
    ['a body that is a JSON array', () => ({ body: '[]' }), 400, snap('4004700', 'Bad Request')],
  ];
  for (const [name, make, status, body] of cases) {
    it(`answers ${body.responseCode} for ${name}`, async () => {
      const o = make();
      const r = await snapCall(gw.url, o.caller ?? c, GENERATE, o.body ?? order(ref()), o);
      assert.equal(r.status, status, r.text);
      assert.deepEqual(r.body, body);
    });
  }

  it('checks the token before anything else: a bad token with every header missing is 4014701', async () => {
    const r = await send(gw.url, 'POST', GENERATE, { authorization: 'Bearer nope' }, '{}');
    assert.deepEqual(r.body, snap('4014701', 'Invalid Token (B2B)'));
  });

  it('verifies the raw bytes: a PHP-style body with \\/ escapes', async () => {
    const raw = `{"partnerReferenceNo":"${ref()}","amount":{"value":"10000.00","currency":"IDR"},"additionalInfo":{"returnUrl":"https:\\/\\/shop.example\\/done"}}`;
    const r = await snapCall(gw.url, c, GENERATE, raw);
    assert.equal(r.status, 200, r.text);
  });

  it('verifies a signature over the path with its query string exactly as sent', async () => {
    const path = `${GENERATE}?channel=web`;
    const r = await snapCall(gw.url, c, path, order(ref()));
    assert.equal(r.status, 200, r.text);
    // Signed without the query, sent with it: refused.
    const ts = formatJakartaTimestamp(Date.now());
    const raw = JSON.stringify(order(ref()));
    const h = createHash('sha256').update(raw).digest('hex');
    const sig = createHmac('sha512', c.clientSecret)
      .update(`POST:${GENERATE}:${c.accessToken}:${h}:${ts}`)
      .digest('base64');
    const bad = await send(
      gw.url,
      'POST',
      path,
      {
        'content-type': 'application/json',
        authorization: `Bearer ${c.accessToken}`,
        'x-timestamp': ts,
        'x-signature': sig,
        'x-partner-id': c.partnerId,
        'x-external-id': newExternalId(),
        'channel-id': '95221',
      },
      raw,
    );
    assert.deepEqual(bad.body, snap('4014700', 'Unauthorized. [Invalid Signature]'));
  });

  it('refuses a token at once when its merchant is disabled', async () => {
    const d = await gw.createMerchant();
    const dc = await authenticate(gw.url, d);
    await gw.admin('PATCH', `/merchants/${d.id}`, { status: 'disabled' });
    const r = await snapCall(gw.url, dc, GENERATE, order(ref()));
    assert.deepEqual(r.body, snap('4014701', 'Invalid Token (B2B)'));
  });
});

describe('X-EXTERNAL-ID idempotency', () => {
  let gw: TestGateway;
  let c: SnapCaller;
  before(async () => {
    gw = await startGateway({ env: { SNAPGATE_RATE_LIMIT: 'off' } });
    c = await authenticate(gw.url, await gw.createMerchant());
  });
  after(() => gw.close());

  it('replays the original response byte for byte for a repeat with the same body', async () => {
    const externalId = newExternalId();
    const body = order(ref());
    const first = await snapCall(gw.url, c, GENERATE, body, { externalId });
    const second = await snapCall(gw.url, c, GENERATE, body, { externalId });
    assert.equal(first.status, 200);
    assert.equal(second.status, 200);
    assert.equal(second.text, first.text);
    const list = await gw.admin('GET', '/transactions?limit=500');
    assert.equal(
      list.body.items.filter((t: { partnerReferenceNo: string }) => t.partnerReferenceNo === body.partnerReferenceNo)
        .length,
      1,
    );
  });

  it('takes the ids real clients send: a UUID, and DOKU’s UUID with milliseconds (50 characters), 64 at most', async () => {
    for (const externalId of [randomUUID(), `${randomUUID()}-${Date.now()}`, `A-${'9'.repeat(62)}`]) {
      const body = order(ref());
      const first = await snapCall(gw.url, c, GENERATE, body, { externalId });
      assert.equal(first.status, 200, `${externalId}: ${first.text}`);
      const again = await snapCall(gw.url, c, GENERATE, body, { externalId });
      assert.equal(again.text, first.text, 'replayed under the same key');
    }
  });

  it('answers 409 4094700 for a repeat with another body', async () => {
    const externalId = newExternalId();
    assert.equal((await snapCall(gw.url, c, GENERATE, order(ref()), { externalId })).status, 200);
    const r = await snapCall(gw.url, c, GENERATE, order(ref()), { externalId });
    assert.equal(r.status, 409);
    assert.deepEqual(r.body, snap('4094700', 'Conflict'));
  });

  it('lets a refused request be corrected and retried with the same X-EXTERNAL-ID', async () => {
    const externalId = newExternalId();
    const bad = await snapCall(gw.url, c, GENERATE, { partnerReferenceNo: ref() }, { externalId });
    assert.equal(bad.status, 400);
    const good = await snapCall(gw.url, c, GENERATE, order(ref()), { externalId });
    assert.equal(good.status, 200, good.text);
  });

  it('creates one transaction for 20 concurrent duplicates, and all get the same bytes', async () => {
    const externalId = newExternalId();
    const body = order(ref());
    const results = await Promise.all(
      Array.from({ length: 20 }, () => snapCall(gw.url, c, GENERATE, body, { externalId })),
    );
    assert.deepEqual([...new Set(results.map((r) => r.status))], [200]);
    assert.equal(new Set(results.map((r) => r.text)).size, 1);
  });

  // QRIS generate and VA create do not read the key before they run: the insert that creates the
  // transaction refuses a kept key, and that refusal replays or conflicts (withIdempotency's createsFirst).
  it('answers 409 4094700 for a repeat under a kept key whose body is invalid or names another order', async () => {
    const externalId = newExternalId();
    assert.equal((await snapCall(gw.url, c, GENERATE, order(ref()), { externalId })).status, 200);
    const invalid = await snapCall(gw.url, c, GENERATE, { partnerReferenceNo: ref() }, { externalId });
    assert.equal(invalid.status, 409, invalid.text);
    assert.deepEqual(invalid.body, snap('4094700', 'Conflict'));
    const otherOrder = order(ref());
    const r = await snapCall(gw.url, c, GENERATE, otherOrder, { externalId });
    assert.equal(r.status, 409, r.text);
    const list = await gw.admin('GET', '/transactions?limit=500');
    assert.equal(
      list.body.items.filter(
        (t: { partnerReferenceNo: string }) => t.partnerReferenceNo === otherOrder.partnerReferenceNo,
      ).length,
      0,
      'the refused order left no transaction behind',
    );
  });

  it('replays a VA create byte for byte, and refuses another trxId under its key', async () => {
    const VA = '/api/snap/v1.0/transfer-va/create-va';
    const va = (trxId: string) => ({
      virtualAccountName: 'Budi Santoso',
      trxId,
      totalAmount: { value: '150000.00', currency: 'IDR' },
      additionalInfo: { bankCode: '014' },
    });
    const externalId = newExternalId();
    const body = va(ref());
    const first = await snapCall(gw.url, c, VA, body, { externalId });
    assert.equal(first.status, 200, first.text);
    const again = await snapCall(gw.url, c, VA, body, { externalId });
    assert.equal(again.status, 200, again.text);
    assert.equal(again.text, first.text);
    const other = await snapCall(gw.url, c, VA, va(ref()), { externalId });
    assert.equal(other.status, 409, other.text);
    assert.deepEqual(other.body, snap('4092700', 'Conflict'));
    const list = await gw.admin('GET', '/transactions?limit=500');
    assert.equal(
      list.body.items.filter((t: { partnerReferenceNo: string }) => t.partnerReferenceNo === body.trxId).length,
      1,
    );
  });

  it('keeps merchants apart: another merchant may use the same X-EXTERNAL-ID', async () => {
    const other = await authenticate(gw.url, await gw.createMerchant());
    const externalId = newExternalId();
    assert.equal((await snapCall(gw.url, c, GENERATE, order(ref()), { externalId })).status, 200);
    assert.equal((await snapCall(gw.url, other, GENERATE, order(ref()), { externalId })).status, 200);
  });
});

import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { formatJakartaTimestamp } from '@snapgate/snap';
import { createManualClock } from '../../src/clock.ts';
import { SqliteStore } from '../../src/store/sqlite/sqlite-store.ts';
import { startGateway, type TestGateway } from '../helpers/gateway.ts';
import { authenticate, postToken, type SnapCaller, snapCall } from '../helpers/snap.ts';

const API = '/api/snap/v1.0/qr';
const snap = (responseCode: string, responseMessage: string) => ({ responseCode, responseMessage });
let refs = 0;
const ref = () => `QR-${Date.now()}-${++refs}`;
const order = (partnerReferenceNo: string, value = '10000.00', extra: Record<string, unknown> = {}) => ({
  partnerReferenceNo,
  amount: { value, currency: 'IDR' },
  ...extra,
});

// An EMV TLV walker and CRC written here, independent of the gateway's own.
function tlv(s: string): Map<string, string> {
  const out = new Map<string, string>();
  let i = 0;
  while (i < s.length) {
    const tag = s.slice(i, i + 2);
    const len = Number(s.slice(i + 2, i + 4));
    assert.ok(Number.isInteger(len), `length at ${i}`);
    out.set(tag, s.slice(i + 4, i + 4 + len));
    i += 4 + len;
  }
  assert.equal(i, s.length);
  return out;
}
function crc(s: string): string {
  let c = 0xffff;
  for (const b of Buffer.from(s)) {
    for (let k = 7; k >= 0; k--) {
      const bit = ((b >> k) & 1) ^ (c >> 15);
      c = ((c << 1) & 0xffff) ^ (bit ? 0x1021 : 0);
    }
  }
  return c.toString(16).toUpperCase().padStart(4, '0');
}

describe('QRIS (docs/protocol.md#qris)', () => {
  let gw: TestGateway;
  let c: SnapCaller;
  let other: SnapCaller;
  before(async () => {
    gw = await startGateway({ env: { SNAPGATE_RATE_LIMIT: 'off', SNAPGATE_PUBLIC_URL: 'https://pay.example' } });
    c = await authenticate(
      gw.url,
      await gw.createMerchant({
        merchantName: 'Warung Kopi Café'.replace('é', 'e'),
        merchantCity: 'BANDUNG',
        nmid: 'ID1020021181745',
        mcc: '5812',
      }),
    );
    other = await authenticate(gw.url, await gw.createMerchant());
  });
  after(() => gw.close());

  const generate = async (extra: Record<string, unknown> = {}, value = '25000.00') => {
    const r = await snapCall(gw.url, c, `${API}/qr-mpm-generate`, order(ref(), value, extra));
    assert.equal(r.status, 200, r.text);
    return r.body;
  };

  it('generates a dynamic QRIS whose content an independent decoder accepts', async () => {
    const partnerReferenceNo = ref();
    const r = await snapCall(
      gw.url,
      c,
      `${API}/qr-mpm-generate`,
      order(partnerReferenceNo, '25000.00', { terminalId: 'T01' }),
    );
    assert.equal(r.status, 200, r.text);
    assert.deepEqual(Object.keys(r.body), [
      'responseCode',
      'responseMessage',
      'referenceNo',
      'partnerReferenceNo',
      'qrContent',
      'qrUrl',
      'merchantName',
      'additionalInfo',
    ]);
    assert.equal(r.body.responseCode, '2004700');
    assert.equal(r.body.responseMessage, 'Successful');
    assert.equal(r.body.partnerReferenceNo, partnerReferenceNo);
    assert.equal(r.body.merchantName, 'Warung Kopi Cafe');
    assert.match(r.body.additionalInfo.validityPeriod, /\+07:00$/);
    const q: string = r.body.qrContent;
    const tags = tlv(q);
    assert.equal(tags.get('00'), '01');
    assert.equal(tags.get('01'), '12');
    assert.equal(tlv(tags.get('51') as string).get('00'), 'ID.CO.QRIS.WWW');
    assert.equal(tlv(tags.get('51') as string).get('02'), 'ID1020021181745');
    assert.equal(tags.get('52'), '5812');
    assert.equal(tags.get('53'), '360');
    assert.equal(tags.get('54'), '25000');
    assert.equal(tags.get('58'), 'ID');
    assert.equal(tags.get('59'), 'Warung Kopi Cafe');
    assert.equal(tags.get('60'), 'BANDUNG');
    assert.equal(tlv(tags.get('62') as string).get('05'), r.body.referenceNo);
    assert.equal(tlv(tags.get('62') as string).get('07'), 'T01');
    assert.deepEqual([...tags.keys()].at(-1), '63');
    assert.equal(tags.get('63'), crc(q.slice(0, -4)));
  });

  it('serves the QR image at qrUrl, under the checkout id, as PNG and SVG', async () => {
    const g = await generate();
    const checkoutId = (g.additionalInfo.checkoutUrl as string).split('/').at(-1) as string;
    assert.equal(g.qrUrl, `https://pay.example/pay/${checkoutId}/qr.png`);
    const png = await fetch(`${gw.url}/pay/${checkoutId}/qr.png`);
    assert.equal(png.status, 200);
    assert.equal(png.headers.get('content-type'), 'image/png');
    assert.deepEqual([...Buffer.from(await png.arrayBuffer()).subarray(0, 4)], [0x89, 0x50, 0x4e, 0x47]);
    const svg = await fetch(`${gw.url}/pay/${checkoutId}/qr.svg`);
    assert.match(await svg.text(), /<svg/);
    assert.equal((await fetch(`${gw.url}/pay/AAAAAAAAAAAAAAAAAAAAAA/qr.png`)).status, 404);
    // Not under the referenceNo any more (before 1.0: CHANGELOG.md).
    assert.equal((await fetch(`${gw.url}/qr/${g.referenceNo}.png`)).status, 404);
  });

  it('answers 409 4094701 for a duplicate partnerReferenceNo', async () => {
    const partnerReferenceNo = ref();
    assert.equal((await snapCall(gw.url, c, `${API}/qr-mpm-generate`, order(partnerReferenceNo))).status, 200);
    const r = await snapCall(gw.url, c, `${API}/qr-mpm-generate`, order(partnerReferenceNo));
    assert.equal(r.status, 409);
    assert.deepEqual(r.body, snap('4094701', 'Duplicate partnerReferenceNo'));
  });

  describe('generate field rules', () => {
    const bad: Array<[string, unknown, ReturnType<typeof snap>]> = [
      [
        'partnerReferenceNo missing',
        { amount: { value: '1.00', currency: 'IDR' } },
        snap('4004702', 'Invalid Mandatory Field {partnerReferenceNo}'),
      ],
      [
        'partnerReferenceNo empty',
        { partnerReferenceNo: '', amount: { value: '1.00', currency: 'IDR' } },
        snap('4004702', 'Invalid Mandatory Field {partnerReferenceNo}'),
      ],
      [
        'partnerReferenceNo of 65 characters',
        order('x'.repeat(65)),
        snap('4004701', 'Invalid Field Format {partnerReferenceNo}'),
      ],
      [
        'partnerReferenceNo a number',
        { partnerReferenceNo: 12, amount: { value: '1.00', currency: 'IDR' } },
        snap('4004701', 'Invalid Field Format {partnerReferenceNo}'),
      ],
      ['amount missing', { partnerReferenceNo: 'a' }, snap('4004702', 'Invalid Mandatory Field {amount}')],
      [
        'amount a string',
        { partnerReferenceNo: 'a', amount: '10000.00' },
        snap('4004701', 'Invalid Field Format {amount}'),
      ],
      [
        'amount.value missing',
        { partnerReferenceNo: 'a', amount: { currency: 'IDR' } },
        snap('4004702', 'Invalid Mandatory Field {amount.value}'),
      ],
      ['amount.value with one decimal', order('a', '10000.5'), snap('4004701', 'Invalid Field Format {amount.value}')],
      ['amount.value without decimals', order('a', '10000'), snap('4004701', 'Invalid Field Format {amount.value}')],
      [
        'amount.value a JSON number',
        { partnerReferenceNo: 'a', amount: { value: 10000.5, currency: 'IDR' } },
        snap('4004701', 'Invalid Field Format {amount.value}'),
      ],
      ['amount.value zero', order('a', '0.00'), snap('4004701', 'Invalid Field Format {amount.value}')],
      ['amount.value negative', order('a', '-1.00'), snap('4004701', 'Invalid Field Format {amount.value}')],
      [
        'amount.value over QRIS’s 13 characters',
        order('a', '99999999999999.00'),
        snap('4004701', 'Invalid Field Format {amount.value}'),
      ],
      [
        'amount.currency missing',
        { partnerReferenceNo: 'a', amount: { value: '1.00' } },
        snap('4004702', 'Invalid Mandatory Field {amount.currency}'),
      ],
      [
        'amount.currency USD',
        { partnerReferenceNo: 'a', amount: { value: '1.00', currency: 'USD' } },
        snap('4004701', 'Invalid Field Format {amount.currency}'),
      ],
      [
        'validityPeriod not a date',
        order('a', '1.00', { validityPeriod: 'tomorrow' }),
        snap('4004701', 'Invalid Field Format {validityPeriod}'),
      ],
      [
        'validityPeriod in the past',
        order('a', '1.00', { validityPeriod: '2020-01-01T00:00:00+07:00' }),
        snap('4004701', 'Invalid Field Format {validityPeriod}'),
      ],
      [
        'terminalId of 17 characters',
        order('a', '1.00', { terminalId: 'T'.repeat(17) }),
        snap('4004701', 'Invalid Field Format {terminalId}'),
      ],
      [
        'additionalInfo an array',
        order('a', '1.00', { additionalInfo: [] }),
        snap('4004701', 'Invalid Field Format {additionalInfo}'),
      ],
      [
        // Deeper than any SNAP body (32 levels): not JSON at all, before any field is read.
        'additionalInfo nested 9,000 deep',
        `{"partnerReferenceNo":"a","amount":{"value":"1.00","currency":"IDR"},"additionalInfo":{"x":${'['.repeat(9000)}${']'.repeat(9000)}}}`,
        snap('4004700', 'Bad Request'),
      ],
      [
        'validityPeriod in the year 9999',
        order('a', '1.00', { validityPeriod: '9999-12-31T23:59:59-14:00' }),
        snap('4004701', 'Invalid Field Format {validityPeriod}'),
      ],
    ];
    for (const [name, body, expected] of bad) {
      it(`answers ${expected.responseCode} for ${name}`, async () => {
        const r = await snapCall(gw.url, c, `${API}/qr-mpm-generate`, body);
        assert.equal(r.status, 400);
        assert.deepEqual(r.body, expected);
      });
    }
    it('accepts empty strings for optional fields', async () => {
      const r = await snapCall(
        gw.url,
        c,
        `${API}/qr-mpm-generate`,
        order(ref(), '1.00', { merchantId: '', terminalId: '', storeId: '', validityPeriod: '' }),
      );
      assert.equal(r.status, 200, r.text);
    });
  });

  it('queries by either reference, and shows payer fields once paid', async () => {
    const g = await generate();
    const q1 = await snapCall(gw.url, c, `${API}/qr-mpm-query`, {
      originalReferenceNo: g.referenceNo,
      serviceCode: '47',
    });
    assert.equal(q1.status, 200);
    assert.deepEqual(q1.body, {
      responseCode: '2005100',
      responseMessage: 'Successful',
      originalReferenceNo: g.referenceNo,
      originalPartnerReferenceNo: g.partnerReferenceNo,
      serviceCode: '47',
      latestTransactionStatus: '01',
      transactionStatusDesc: 'Initiated',
      amount: { value: '25000.00', currency: 'IDR' },
      feeAmount: { value: '0.00', currency: 'IDR' },
      additionalInfo: {},
    });
    await gw.admin('POST', `/sandbox/qris/${g.referenceNo}/pay`, {
      payerName: 'BUDI',
      payerIssuer: '93600008',
      payerRefId: '555',
    });
    const q2 = await snapCall(gw.url, c, `${API}/qr-mpm-query`, {
      originalPartnerReferenceNo: g.partnerReferenceNo,
      serviceCode: '47',
    });
    assert.equal(q2.body.latestTransactionStatus, '00');
    assert.equal(q2.body.transactionStatusDesc, 'Success');
    assert.match(q2.body.paidTime, /\+07:00$/);
    assert.equal(q2.body.additionalInfo.payerName, 'BUDI');
    assert.equal(q2.body.additionalInfo.payerIssuer, '93600008');
  });

  it('answers 4045101 for an unknown transaction and for another merchant’s', async () => {
    const g = await generate();
    const unknown = await snapCall(gw.url, c, `${API}/qr-mpm-query`, {
      originalReferenceNo: '000000000000000000',
      serviceCode: '47',
    });
    assert.equal(unknown.status, 404);
    assert.deepEqual(unknown.body, snap('4045101', 'Transaction Not Found'));
    const foreign = await snapCall(gw.url, other, `${API}/qr-mpm-query`, {
      originalReferenceNo: g.referenceNo,
      serviceCode: '47',
    });
    assert.deepEqual(foreign.body, snap('4045101', 'Transaction Not Found'));
    const foreignByRef = await snapCall(gw.url, other, `${API}/qr-mpm-query`, {
      originalPartnerReferenceNo: g.partnerReferenceNo,
      serviceCode: '47',
    });
    assert.deepEqual(foreignByRef.body, snap('4045101', 'Transaction Not Found'));
  });

  it('checks query fields: a reference and serviceCode 47', async () => {
    const g = await generate();
    assert.deepEqual(
      (await snapCall(gw.url, c, `${API}/qr-mpm-query`, { serviceCode: '47' })).body,
      snap('4005102', 'Invalid Mandatory Field {originalReferenceNo}'),
    );
    assert.deepEqual(
      (await snapCall(gw.url, c, `${API}/qr-mpm-query`, { originalReferenceNo: g.referenceNo })).body,
      snap('4005102', 'Invalid Mandatory Field {serviceCode}'),
    );
    assert.deepEqual(
      (await snapCall(gw.url, c, `${API}/qr-mpm-query`, { originalReferenceNo: g.referenceNo, serviceCode: '17' }))
        .body,
      snap('4005101', 'Invalid Field Format {serviceCode}'),
    );
  });

  it('cancels an unpaid QRIS (05) and refuses to cancel a paid one (4057701)', async () => {
    const g = await generate();
    const r = await snapCall(gw.url, c, `${API}/qr-mpm-cancel`, {
      originalReferenceNo: g.referenceNo,
      reason: 'customer left',
    });
    assert.equal(r.status, 200, r.text);
    assert.equal(r.body.responseCode, '2007700');
    assert.match(r.body.cancelTime, /\+07:00$/);
    const q = await snapCall(gw.url, c, `${API}/qr-mpm-query`, {
      originalReferenceNo: g.referenceNo,
      serviceCode: '47',
    });
    assert.equal(q.body.latestTransactionStatus, '05');
    const paid = await generate();
    await gw.admin('POST', `/sandbox/qris/${paid.referenceNo}/pay`, {});
    const refused = await snapCall(gw.url, c, `${API}/qr-mpm-cancel`, { originalReferenceNo: paid.referenceNo });
    assert.equal(refused.status, 405);
    assert.deepEqual(refused.body, snap('4057701', 'Requested Operation Is Not Allowed'));
  });

  it('refunds in parts, refuses more than is left, and becomes 04 when all is refunded', async () => {
    const g = await generate({}, '10000.00');
    const unpaid = await snapCall(gw.url, c, `${API}/qr-mpm-refund`, {
      originalPartnerReferenceNo: g.partnerReferenceNo,
      partnerRefundNo: 'RF-0',
      refundAmount: { value: '1.00', currency: 'IDR' },
    });
    assert.deepEqual(unpaid.body, snap('4057801', 'Requested Operation Is Not Allowed'));
    await gw.admin('POST', `/sandbox/qris/${g.referenceNo}/pay`, {});
    const refund = (partnerRefundNo: string, value: string) =>
      snapCall(gw.url, c, `${API}/qr-mpm-refund`, {
        originalPartnerReferenceNo: g.partnerReferenceNo,
        partnerRefundNo,
        refundAmount: { value, currency: 'IDR' },
        reason: 'return',
      });
    const r1 = await refund(`${g.referenceNo}-1`, '3000.10');
    assert.equal(r1.status, 200, r1.text);
    assert.equal(r1.body.responseCode, '2007800');
    assert.deepEqual(r1.body.refundAmount, { value: '3000.10', currency: 'IDR' });
    assert.match(r1.body.refundNo, /^RF\d{16}$/);
    const tooMuch = await refund(`${g.referenceNo}-2`, '6999.91');
    assert.equal(tooMuch.status, 404);
    assert.deepEqual(tooMuch.body, snap('4047813', 'Invalid Amount'));
    const dup = await refund(`${g.referenceNo}-1`, '1.00');
    assert.equal(dup.status, 409);
    const r2 = await refund(`${g.referenceNo}-3`, '6999.90');
    assert.equal(r2.status, 200, r2.text);
    const q = await snapCall(gw.url, c, `${API}/qr-mpm-query`, {
      originalReferenceNo: g.referenceNo,
      serviceCode: '47',
    });
    assert.equal(q.body.latestTransactionStatus, '04');
    const t = await gw.admin('GET', `/transactions/${g.referenceNo}`);
    assert.deepEqual(t.body.refundedAmount, { value: '10000.00', currency: 'IDR' });
    // Each refund is a history row and a callback: a part leaves it 00, the last part makes it 04.
    const history = t.body.statusHistory as Array<{ status: string; reason: string | null }>;
    assert.deepEqual(
      history.map((h) => h.status),
      ['01', '00', '00', '04'],
    );
    assert.deepEqual(
      history.slice(2).map((h) => h.reason),
      ['return', 'return'],
    );
    const rows = await gw.store.notificationsOf(g.referenceNo);
    assert.deepEqual(
      rows.map((n) => n.latestStatus),
      ['00', '00', '04'],
    );
    const [, part, whole] = rows.map((n) => JSON.parse(n.body));
    assert.deepEqual(Object.keys(part.additionalInfo).slice(-2), ['refund', 'refundedAmount']);
    assert.deepEqual(part.additionalInfo.refund, {
      refundNo: r1.body.refundNo,
      partnerRefundNo: `${g.referenceNo}-1`,
      refundAmount: { value: '3000.10', currency: 'IDR' },
      refundTime: r1.body.refundTime,
    });
    assert.deepEqual(part.additionalInfo.refundedAmount, { value: '3000.10', currency: 'IDR' });
    assert.equal(part.latestTransactionStatus, '00');
    assert.deepEqual(part.amount, { value: '10000.00', currency: 'IDR' });
    assert.equal(whole.additionalInfo.refund.refundNo, r2.body.refundNo);
    assert.deepEqual(whole.additionalInfo.refund.refundAmount, { value: '6999.90', currency: 'IDR' });
    assert.deepEqual(whole.additionalInfo.refundedAmount, { value: '10000.00', currency: 'IDR' });
  });

  it('pays in the sandbox by scanning the qrContent, and refuses a content with a broken CRC', async () => {
    const g = await generate();
    const paid = await gw.admin('POST', '/sandbox/qris/pay', { qrContent: g.qrContent, status: '03' });
    assert.equal(paid.status, 200, JSON.stringify(paid.body));
    assert.equal(paid.body.status, '03');
    const broken = `${g.qrContent.slice(0, -1)}${g.qrContent.endsWith('0') ? '1' : '0'}`;
    assert.equal((await gw.admin('POST', '/sandbox/qris/pay', { qrContent: broken })).status, 404);
  });

  it('refuses an illegal status change in the sandbox with a clear 409', async () => {
    const g = await generate();
    await gw.admin('POST', `/sandbox/qris/${g.referenceNo}/pay`, { status: '06' });
    const r = await gw.admin('POST', `/sandbox/qris/${g.referenceNo}/pay`, { status: '00' });
    assert.equal(r.status, 409);
    assert.match(r.body.detail, /06 \(Failed\) cannot change to 00 \(Success\)/);
  });

  it('writes one notification per QRIS status change, with the documented notification body', async () => {
    const g = await generate({}, '12345.67');
    await gw.admin('POST', `/sandbox/qris/${g.referenceNo}/pay`, { status: '03' });
    await gw.admin('POST', `/sandbox/qris/${g.referenceNo}/pay`, {
      status: '00',
      payerName: 'SITI',
      payerIssuer: '93600014',
      payerRefId: '778899',
    });
    const rows = await gw.store.notificationsOf(g.referenceNo);
    assert.deepEqual(
      rows.map((n) => [n.latestStatus, n.state]),
      [
        ['03', 'superseded'],
        ['00', 'pending'],
      ],
    );
    const body = JSON.parse((rows[1] as { body: string }).body);
    assert.deepEqual(Object.keys(body), [
      'originalReferenceNo',
      'originalPartnerReferenceNo',
      'latestTransactionStatus',
      'amount',
      'additionalInfo',
    ]);
    assert.deepEqual(Object.keys(body.additionalInfo), [
      'payerIssuer',
      'payerName',
      'payerRefId',
      'billNumber',
      'transactionDate',
      'feeAmount',
    ]);
    assert.equal(body.originalReferenceNo, g.referenceNo);
    assert.equal(body.originalPartnerReferenceNo, g.partnerReferenceNo);
    assert.deepEqual(body.amount, { value: '12345.67', currency: 'IDR' });
    assert.equal(body.additionalInfo.payerName, 'SITI');
    assert.equal(typeof body.additionalInfo.billNumber, 'number');
    assert.match(body.additionalInfo.transactionDate, /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\+07:00$/);
    assert.match(rows[1]?.id ?? '', /^\d{20}$/);
  });
});

describe('QRIS expiry (injected clock)', () => {
  it('turns an unpaid QRIS into 06 Expired at its validityPeriod, notifies it, and refuses payment after', async () => {
    // validityPeriod has whole seconds: start the clock on one.
    const clock = createManualClock(Math.floor(Date.now() / 1000) * 1000);
    const gw = await startGateway({ clock, env: { SNAPGATE_RATE_LIMIT: 'off' } });
    try {
      const m = await gw.createMerchant();
      const c = await authenticate(gw.url, m);
      const validityPeriod = formatJakartaTimestamp(clock.now() + 10 * 60_000);
      const g = (await snapCall(gw.url, c, `${API}/qr-mpm-generate`, order(ref(), '5000.00', { validityPeriod }))).body;
      const d = (await snapCall(gw.url, c, `${API}/qr-mpm-generate`, order(ref(), '5000.00'))).body; // default 30 min
      clock.advance(10 * 60_000 - 1);
      assert.equal(await gw.gateway.expiry.runOnce(), 0);
      clock.advance(1);
      assert.equal(await gw.gateway.expiry.runOnce(), 1);
      const t = await gw.admin('GET', `/transactions/${g.referenceNo}`);
      assert.equal(t.body.status, '06');
      assert.equal(t.body.statusDesc, 'Expired');
      assert.deepEqual(
        t.body.notifications.map((n: { latestTransactionStatus: string }) => n.latestTransactionStatus),
        ['06'],
      );
      assert.equal((await gw.admin('POST', `/sandbox/qris/${g.referenceNo}/pay`, {})).status, 409);
      assert.equal((await gw.admin('GET', `/transactions/${d.referenceNo}`)).body.status, '01');

      // Past the default 30 minutes, a query sees it expired even before the sweeper runs.
      clock.advance(20 * 60_000);
      const fresh = await postToken(gw.url, {
        clientKey: m.clientKey,
        clientSecret: m.clientSecret,
        timestamp: formatJakartaTimestamp(clock.now()),
      });
      const c2 = { ...c, accessToken: fresh.body.accessToken };
      const q = await snapCall(
        gw.url,
        c2,
        `${API}/qr-mpm-query`,
        { originalReferenceNo: d.referenceNo, serviceCode: '47' },
        { timestamp: formatJakartaTimestamp(clock.now()) },
      );
      assert.equal(q.body.latestTransactionStatus, '06');
      assert.equal(q.body.transactionStatusDesc, 'Expired');
    } finally {
      await gw.close();
    }
  });

  it('finds due expiries again after a restart on the same database', async () => {
    const clock = createManualClock(Date.now());
    const first = await startGateway({ clock, env: { SNAPGATE_RATE_LIMIT: 'off' } });
    const c = await authenticate(first.url, await first.createMerchant());
    const g = (await snapCall(first.url, c, `${API}/qr-mpm-generate`, order(ref()))).body;
    const file = (first.store as SqliteStore).db.name;
    await first.gateway.app.close();
    await first.store.close();
    clock.advance(31 * 60_000);
    try {
      const second = await startGateway({ clock, store: new SqliteStore({ file }) });
      try {
        assert.equal(await second.gateway.expiry.runOnce(), 1);
        assert.equal((await second.store.findTransaction(g.referenceNo))?.status, '06');
      } finally {
        await second.close();
      }
    } finally {
      rmSync(first.dir, { recursive: true, force: true });
    }
  });
});

describe('a status change and its notification commit together', () => {
  it('a failure forced between the status update and the notification insert leaves neither', async () => {
    let armed = false;
    const dir = mkdtempSync(join(tmpdir(), 'snapgate-fault-'));
    const store = new SqliteStore({
      file: `${dir}/f.db`,
      faults: {
        afterStatusUpdate: () => {
          if (armed) throw new Error('injected crash between status update and notification insert');
        },
      },
    });
    const gw = await startGateway({ store, env: { SNAPGATE_RATE_LIMIT: 'off', SNAPGATE_LOG_LEVEL: 'fatal' } });
    try {
      const c = await authenticate(gw.url, await gw.createMerchant());
      const g = (await snapCall(gw.url, c, `${API}/qr-mpm-generate`, order(ref()))).body;
      armed = true;
      const r = await gw.admin('POST', `/sandbox/qris/${g.referenceNo}/pay`, {});
      assert.equal(r.status, 500);
      assert.equal(JSON.stringify(r.body).includes('injected'), false, 'no internals in the answer');
      const txn = await store.findTransaction(g.referenceNo);
      assert.equal(txn?.status, '01');
      assert.equal(txn?.seq, 1);
      assert.deepEqual(await store.notificationsOf(g.referenceNo), []);
      assert.equal((await store.statusHistory(g.referenceNo)).length, 1);
      armed = false;
      assert.equal((await gw.admin('POST', `/sandbox/qris/${g.referenceNo}/pay`, {})).status, 200);
      assert.equal((await store.notificationsOf(g.referenceNo)).length, 1);
    } finally {
      await gw.close();
      rmSync(dir, { recursive: true, force: true });
    }
  });
});

import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { createManualClock } from '../../src/clock.ts';
import { startGateway, type TestGateway } from '../helpers/gateway.ts';
import { authenticate, type SnapCaller, snapCall } from '../helpers/snap.ts';

const API = '/api/snap/v1.0/transfer-va';
const snap = (responseCode: string, responseMessage: string) => ({ responseCode, responseMessage });
let n = 0;
const trx = () => `INV-${Date.now()}-${++n}`;
const idr = (value: string) => ({ value, currency: 'IDR' });

describe('Virtual Account (docs/protocol.md#virtual-account)', () => {
  let gw: TestGateway;
  let c: SnapCaller;
  let other: SnapCaller;
  before(async () => {
    gw = await startGateway({ env: { SNAPGATE_RATE_LIMIT: 'off' } });
    c = await authenticate(gw.url, await gw.createMerchant());
    other = await authenticate(gw.url, await gw.createMerchant());
  });
  after(() => gw.close());

  const create = async (extra: Record<string, unknown> = {}) => {
    const r = await snapCall(gw.url, c, `${API}/create-va`, {
      virtualAccountName: 'Budi Santoso',
      trxId: trx(),
      totalAmount: idr('150000.00'),
      ...extra,
    });
    assert.equal(r.status, 200, r.text);
    return r.body.virtualAccountData;
  };
  const pay = (vaNo: string, body: Record<string, unknown> = {}) =>
    gw.admin('POST', `/sandbox/va/${encodeURIComponent(vaNo)}/pay`, body);

  it('creates a closed VA and allocates its number', async () => {
    const trxId = trx();
    const r = await snapCall(gw.url, c, `${API}/create-va`, {
      virtualAccountName: 'Budi Santoso',
      trxId,
      totalAmount: idr('150000.00'),
      virtualAccountEmail: 'budi@example.id',
      virtualAccountPhone: '6281234567890',
      expiredDate: '',
      additionalInfo: { bankCode: '014' },
    });
    assert.equal(r.status, 200, r.text);
    assert.equal(r.body.responseCode, '2002700');
    assert.equal(r.body.responseMessage, 'Success');
    const d = r.body.virtualAccountData;
    assert.equal(d.partnerServiceId.length, 8);
    assert.match(d.partnerServiceId, /^ *014\d+$/);
    assert.match(d.customerNo, /^\d+$/);
    assert.equal(d.virtualAccountNo, `${d.partnerServiceId}${d.customerNo}`);
    assert.equal(d.trxId, trxId);
    assert.deepEqual(d.totalAmount, idr('150000.00'));
    assert.equal(d.virtualAccountTrxType, 'C');
    assert.equal(d.virtualAccountEmail, 'budi@example.id');
    assert.match(d.expiredDate, /\+07:00$/);
    assert.deepEqual(d.additionalInfo, { bankCode: '014', checkoutUrl: d.additionalInfo.checkoutUrl });
    assert.match(d.additionalInfo.checkoutUrl, /\/pay\/[A-Za-z0-9_-]{22}$/);
  });

  it('allocates separate number ranges per bankCode and never repeats a number', async () => {
    const a = await create({ additionalInfo: { bankCode: '014' } });
    const b = await create({ additionalInfo: { bankCode: '009' } });
    const a2 = await create({ additionalInfo: { bankCode: '014' } });
    assert.notEqual(a.partnerServiceId, b.partnerServiceId);
    assert.equal(a.partnerServiceId, a2.partnerServiceId);
    assert.notEqual(a.virtualAccountNo, a2.virtualAccountNo);
    const o = (
      await snapCall(gw.url, other, `${API}/create-va`, {
        virtualAccountName: 'X',
        trxId: trx(),
        totalAmount: idr('1.00'),
        additionalInfo: { bankCode: '014' },
      })
    ).body.virtualAccountData;
    assert.notEqual(o.partnerServiceId, a.partnerServiceId);
  });

  it('answers 4092701 for a duplicate trxId', async () => {
    const trxId = trx();
    await create({ trxId });
    const r = await snapCall(gw.url, c, `${API}/create-va`, {
      virtualAccountName: 'B',
      trxId,
      totalAmount: idr('1.00'),
    });
    assert.equal(r.status, 409);
    assert.deepEqual(r.body, snap('4092701', 'Duplicate partnerReferenceNo'));
  });

  describe('create field rules', () => {
    const bad: Array<[string, Record<string, unknown>, ReturnType<typeof snap>]> = [
      [
        'virtualAccountName missing',
        { trxId: 'a', totalAmount: idr('1.00') },
        snap('4002702', 'Invalid Mandatory Field {virtualAccountName}'),
      ],
      [
        'trxId missing',
        { virtualAccountName: 'a', totalAmount: idr('1.00') },
        snap('4002702', 'Invalid Mandatory Field {trxId}'),
      ],
      [
        'trxId of 65 characters',
        { virtualAccountName: 'a', trxId: 'x'.repeat(65), totalAmount: idr('1.00') },
        snap('4002701', 'Invalid Field Format {trxId}'),
      ],
      [
        'totalAmount missing on a closed VA',
        { virtualAccountName: 'a', trxId: 'a' },
        snap('4002702', 'Invalid Mandatory Field {totalAmount}'),
      ],
      [
        'totalAmount with three decimals',
        { virtualAccountName: 'a', trxId: 'a', totalAmount: idr('1.000') },
        snap('4002701', 'Invalid Field Format {totalAmount.value}'),
      ],
      [
        'virtualAccountTrxType X',
        { virtualAccountName: 'a', trxId: 'a', totalAmount: idr('1.00'), virtualAccountTrxType: 'X' },
        snap('4002701', 'Invalid Field Format {virtualAccountTrxType}'),
      ],
      [
        'a bad e-mail',
        { virtualAccountName: 'a', trxId: 'a', totalAmount: idr('1.00'), virtualAccountEmail: 'nope' },
        snap('4002701', 'Invalid Field Format {virtualAccountEmail}'),
      ],
      [
        'a bad phone',
        { virtualAccountName: 'a', trxId: 'a', totalAmount: idr('1.00'), virtualAccountPhone: 'call me' },
        snap('4002701', 'Invalid Field Format {virtualAccountPhone}'),
      ],
      [
        'a bankCode of 4 digits',
        { virtualAccountName: 'a', trxId: 'a', totalAmount: idr('1.00'), additionalInfo: { bankCode: '0141' } },
        snap('4002701', 'Invalid Field Format {additionalInfo.bankCode}'),
      ],
      [
        'an expiredDate in the past',
        { virtualAccountName: 'a', trxId: 'a', totalAmount: idr('1.00'), expiredDate: '2020-01-01T00:00:00+07:00' },
        snap('4002701', 'Invalid Field Format {expiredDate}'),
      ],
    ];
    for (const [name, body, expected] of bad) {
      it(`answers ${expected.responseCode} for ${name}`, async () => {
        const r = await snapCall(gw.url, c, `${API}/create-va`, body);
        assert.equal(r.status, 400);
        assert.deepEqual(r.body, expected);
      });
    }
  });

  it('inquires and reports status before and after a payment of the exact bill', async () => {
    const d = await create();
    const inq = await snapCall(gw.url, c, `${API}/inquiry-va`, {
      virtualAccountNo: d.virtualAccountNo,
      trxId: d.trxId,
    });
    assert.equal(inq.status, 200, inq.text);
    assert.equal(inq.body.responseCode, '2003000');
    assert.equal(inq.body.virtualAccountData.virtualAccountName, 'Budi Santoso');
    const s1 = await snapCall(gw.url, c, `${API}/status`, { virtualAccountNo: d.virtualAccountNo });
    assert.equal(s1.body.responseCode, '2002600');
    assert.equal(s1.body.virtualAccountData.paymentFlagStatus, '01');
    const paid = await pay(d.virtualAccountNo, { amount: '150000.00', payerName: 'BUDI' });
    assert.equal(paid.status, 200, JSON.stringify(paid.body));
    assert.equal(paid.body.status, '00');
    const s2 = await snapCall(gw.url, c, `${API}/status`, { virtualAccountNo: d.virtualAccountNo });
    assert.equal(s2.body.virtualAccountData.paymentFlagStatus, '00');
    assert.deepEqual(s2.body.virtualAccountData.paidAmount, idr('150000.00'));
    assert.equal(s2.body.virtualAccountData.latestTransactionStatus, '00');
    const rows = await gw.store.notificationsOf(paid.body.referenceNo);
    assert.equal(rows.length, 1);
    const body = JSON.parse(rows[0]?.body ?? '{}');
    assert.equal(body.originalPartnerReferenceNo, d.trxId);
    assert.deepEqual(body.amount, idr('150000.00'));
    assert.equal(body.additionalInfo.payerName, 'BUDI');
  });

  it('refuses a closed VA paid with another amount, and a VA paid twice', async () => {
    const d = await create();
    const wrong = await pay(d.virtualAccountNo, { amount: '149999.99' });
    assert.equal(wrong.status, 404);
    assert.equal(wrong.body.responseCode, '4042513');
    assert.equal((await pay(d.virtualAccountNo)).status, 200);
    // The sandbox bank asks first (inquiry, 24), as a bank does: a paid bill is refused there.
    const again = await pay(d.virtualAccountNo);
    assert.equal(again.status, 404);
    assert.deepEqual([again.body.responseCode, again.body.responseMessage], ['4042414', 'Paid Bill']);
  });

  it('lets an open VA be paid any positive amount', async () => {
    const r = await snapCall(gw.url, c, `${API}/create-va`, {
      virtualAccountName: 'Open',
      trxId: trx(),
      virtualAccountTrxType: 'O',
    });
    assert.equal(r.status, 200, r.text);
    const d = r.body.virtualAccountData;
    assert.equal((await pay(d.virtualAccountNo, { amount: '0.00' })).status, 404);
    const paid = await pay(d.virtualAccountNo, { amount: '777.77' });
    assert.equal(paid.status, 200);
    assert.deepEqual(paid.body.paidAmount, idr('777.77'));
  });

  it('updates an unpaid VA (PUT) and refuses to update a paid one', async () => {
    const d = await create();
    const u = await snapCall(
      gw.url,
      c,
      `${API}/update-va`,
      {
        virtualAccountNo: d.virtualAccountNo,
        trxId: d.trxId,
        virtualAccountName: 'Budi S.',
        totalAmount: idr('175000.00'),
      },
      { method: 'PUT' },
    );
    assert.equal(u.status, 200, u.text);
    assert.equal(u.body.responseCode, '2002800');
    assert.equal(u.body.virtualAccountData.virtualAccountName, 'Budi S.');
    assert.deepEqual(u.body.virtualAccountData.totalAmount, idr('175000.00'));
    assert.equal((await pay(d.virtualAccountNo, { amount: '150000.00' })).status, 404);
    assert.equal((await pay(d.virtualAccountNo, { amount: '175000.00' })).status, 200);
    const late = await snapCall(
      gw.url,
      c,
      `${API}/update-va`,
      { virtualAccountNo: d.virtualAccountNo, virtualAccountName: 'x' },
      { method: 'PUT' },
    );
    assert.equal(late.status, 405);
    assert.deepEqual(late.body, snap('4052801', 'Requested Operation Is Not Allowed'));
  });

  it('deletes an unpaid VA (DELETE); it no longer takes payment', async () => {
    const d = await create();
    const del = await snapCall(
      gw.url,
      c,
      `${API}/delete-va`,
      { virtualAccountNo: d.virtualAccountNo, trxId: d.trxId },
      { method: 'DELETE' },
    );
    assert.equal(del.status, 200, del.text);
    assert.equal(del.body.responseCode, '2003100');
    const deleted = await gw.store.findTransactionByVirtualAccountNo(d.virtualAccountNo);
    const last = (await gw.store.statusHistory(deleted?.referenceNo as string)).at(-1);
    assert.deepEqual([last?.status, last?.reason], ['05', 'deleted by merchant']);
    const r = await pay(d.virtualAccountNo);
    assert.equal(r.status, 404);
    assert.deepEqual(
      [r.body.responseCode, r.body.responseMessage],
      ['4042419', 'Invalid Bill/Virtual Account [Expired]'],
    );
  });

  it('answers 404 xx12 for an unknown VA and for another merchant’s', async () => {
    const d = await create();
    const unknown = await snapCall(gw.url, c, `${API}/inquiry-va`, { virtualAccountNo: '  99999999999999' });
    assert.equal(unknown.status, 404);
    assert.deepEqual(unknown.body, snap('4043012', 'Invalid Bill/Virtual Account [Not Found]'));
    const foreign = await snapCall(gw.url, other, `${API}/status`, { virtualAccountNo: d.virtualAccountNo });
    assert.deepEqual(foreign.body, snap('4042612', 'Invalid Bill/Virtual Account [Not Found]'));
    const wrongTrx = await snapCall(gw.url, c, `${API}/inquiry-va`, {
      virtualAccountNo: d.virtualAccountNo,
      trxId: 'other',
    });
    assert.equal(wrongTrx.status, 404);
    assert.deepEqual(
      (await snapCall(gw.url, c, `${API}/inquiry-va`, {})).body,
      snap('4003002', 'Invalid Mandatory Field {virtualAccountNo}'),
    );
  });
});

describe('VA expiry (injected clock)', () => {
  it('refuses payment of a VA past its expiredDate', async () => {
    const clock = createManualClock(Date.now());
    const gw = await startGateway({ clock, env: { SNAPGATE_RATE_LIMIT: 'off' } });
    try {
      const c = await authenticate(gw.url, await gw.createMerchant());
      const r = await snapCall(gw.url, c, `${API}/create-va`, {
        virtualAccountName: 'E',
        trxId: trx(),
        totalAmount: idr('10.00'),
      });
      clock.advance(24 * 3600_000 + 1000);
      const paid = await gw.admin(
        'POST',
        `/sandbox/va/${encodeURIComponent(r.body.virtualAccountData.virtualAccountNo)}/pay`,
        {},
      );
      assert.equal(paid.status, 404);
      assert.equal(paid.body.responseMessage, 'Invalid Bill/Virtual Account [Expired]');
    } finally {
      await gw.close();
    }
  });
});

// docs/callbacks.md: a merchant's callbackVaBody (SNAP's VA payment shape) and callbackAck (any
// 200xxxx code, string or number), both opt-in; the strict rule stays the default.
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { callbackHmacStringToSign, verifyHmacSha512 } from '@snapgate/snap';
import { notificationBody } from '../../src/payments/notification-body.ts';
import type { TransactionRecord } from '../../src/records/records.ts';
import { startGateway, type TestGateway } from '../helpers/gateway.ts';
import { startReceiver, waitFor } from '../helpers/receiver.ts';
import { authenticate, snapCall } from '../helpers/snap.ts';

const idr = (value: string) => ({ value, currency: 'IDR' });
let n = 0;

describe('callbacks merchant code of other gateways accepts (callbackVaBody, callbackAck)', () => {
  let gw: TestGateway;
  let receiver: Awaited<ReturnType<typeof startReceiver>>;
  /** What the receiver answers, by the path it was called at. */
  const answers: Record<string, [number, string]> = {};
  before(async () => {
    receiver = await startReceiver((req, res) => {
      const [status, body] = answers[req.url.split('/')[1] ?? ''] ?? [500, ''];
      res.writeHead(status, { 'content-type': 'application/json' }).end(body);
    });
    gw = await startGateway({ dispatch: true });
  });
  after(async () => {
    await gw.close();
    await receiver.close();
  });

  /** A merchant whose callbacks go to `/<slot>/…`, answered as `answers[slot]` says. */
  async function merchant(slot: string, settings: Record<string, unknown>) {
    const m = await gw.createMerchant({ callbackBaseUrl: `${receiver.baseUrl}/${slot}`, ...settings });
    return { m, c: await authenticate(gw.url, m) };
  }

  async function paidVa(slot: string, settings: Record<string, unknown>) {
    const { m, c } = await merchant(slot, settings);
    const trxId = `COMPAT-${++n}`;
    const created = await snapCall(gw.url, c, '/api/snap/v1.0/transfer-va/create-va', {
      virtualAccountName: 'Budi Santoso',
      trxId,
      totalAmount: idr('150000.00'),
    });
    assert.equal(created.status, 200, created.text);
    const va = created.body.virtualAccountData as Record<string, string>;
    assert.equal(
      (await gw.admin('POST', `/sandbox/va/${encodeURIComponent(va.virtualAccountNo as string)}/pay`, {})).status,
      200,
    );
    const txn = await gw.store.findTransactionByVirtualAccountNo(va.virtualAccountNo as string);
    return { m, va, trxId, referenceNo: txn?.referenceNo as string };
  }

  const notificationOf = async (referenceNo: string) =>
    (await gw.admin('GET', `/notifications?referenceNo=${referenceNo}`)).body.items[0] as {
      id: string;
      state: string;
      attemptCount: number;
    };

  it('sends a VA callback in SNAP’s VA payment shape, signed as always', async () => {
    answers.shape = [200, '{"responseCode":"2002600","responseMessage":"Success"}'];
    const { m, va, trxId, referenceNo } = await paidVa('shape', { callbackVaBody: 'snap-payment' });
    assert.equal(m.callbackVaBody, 'snap-payment');
    const got = await waitFor('the VA callback', () => receiver.received.find((r) => r.url.startsWith('/shape/')));
    const body = JSON.parse(got.body);
    assert.deepEqual(Object.keys(body), [
      'partnerServiceId',
      'customerNo',
      'virtualAccountNo',
      'virtualAccountName',
      'virtualAccountEmail',
      'virtualAccountPhone',
      'trxId',
      'paymentRequestId',
      'paidAmount',
      'totalAmount',
      'trxDateTime',
      'referenceNo',
      'additionalInfo',
    ]);
    assert.equal(body.virtualAccountNo, va.virtualAccountNo);
    assert.equal(body.partnerServiceId, va.partnerServiceId);
    assert.equal(body.trxId, trxId);
    assert.equal(body.referenceNo, referenceNo);
    assert.deepEqual(body.paidAmount, idr('150000.00'));
    assert.equal(body.additionalInfo.latestTransactionStatus, '00');
    assert.match(body.trxDateTime, /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\+07:00$/);
    // The sandbox bank's payment flag named it: the callback carries the bank's paymentRequestId.
    const flag = (await gw.store.findTransaction(referenceNo))?.details as { paymentRequestId?: string };
    assert.equal(body.paymentRequestId, flag.paymentRequestId);
    const data = callbackHmacStringToSign({
      path: got.url,
      partnerId: got.headers['x-partner-id'] as string,
      rawBody: got.body,
      timestamp: got.headers['x-timestamp'] as string,
    });
    assert.equal(verifyHmacSha512(m.clientSecret as string, data, got.headers['x-signature'] as string), true);
    await waitFor('acknowledged', async () => (await notificationOf(referenceNo)).state === 'delivered');
  });

  it('puts only a payment in the payment shape: an expired or deleted VA keeps the standard body', async () => {
    answers.only = [200, '{"responseCode":"2002600"}'];
    const { referenceNo } = await paidVa('only', { callbackVaBody: 'snap-payment' });
    const paid = (await gw.store.findTransaction(referenceNo)) as TransactionRecord;
    const style = { callbackVaBody: 'snap-payment' as const };
    assert.ok('virtualAccountNo' in JSON.parse(notificationBody(paid, Date.now(), style)));
    for (const status of ['05', '06', '04'] as const) {
      const body = JSON.parse(notificationBody({ ...paid, status }, Date.now(), style));
      assert.equal(body.originalReferenceNo, referenceNo, status);
      assert.equal(body.latestTransactionStatus, status);
      assert.equal('virtualAccountNo' in body, false, status);
    }
  });

  it('keeps QRIS callbacks, and VA callbacks of other merchants, in the standard shape', async () => {
    answers.std = [200, '{"responseCode":"2002600","responseMessage":"Success"}'];
    const { referenceNo } = await paidVa('std', {});
    const got = await waitFor('the VA callback', () => receiver.received.find((r) => r.url.startsWith('/std/')));
    assert.equal(JSON.parse(got.body).originalReferenceNo, referenceNo);
  });

  it('with any-200, takes 2002700 as a number or a string; strict (the default) does not', async () => {
    answers.doku = [200, '{"responseCode":2002700,"responseMessage":"success"}'];
    const lenient = await paidVa('doku', { callbackAck: 'any-200' });
    await waitFor('acknowledged', async () => (await notificationOf(lenient.referenceNo)).state === 'delivered');

    answers.str = [200, '{"responseCode":"2002700"}'];
    const asString = await paidVa('str', { callbackAck: 'any-200' });
    await waitFor('acknowledged', async () => (await notificationOf(asString.referenceNo)).state === 'delivered');

    answers.strict = [200, '{"responseCode":2002700,"responseMessage":"success"}'];
    const strict = await paidVa('strict', {});
    assert.equal(strict.m.callbackAck, 'strict');
    const n1 = await waitFor('an attempt', async () => {
      const x = await notificationOf(strict.referenceNo);
      return x.attemptCount >= 1 && x;
    });
    assert.notEqual(n1.state, 'delivered', 'refused: retried');
  });

  it('with any-200, still refuses what is no success: 4002600, 200 without JSON, 201, 2012600', async () => {
    const cases: Array<[string, [number, string]]> = [
      ['e4', [200, '{"responseCode":"4002600"}']],
      ['nojson', [200, 'OK']],
      ['created', [201, '{"responseCode":"2002600"}']],
      ['seven', [200, '{"responseCode":"20026000"}']],
      ['obj', [200, '{"responseCode":{"code":"2002600"}}']],
    ];
    for (const [slot, answer] of cases) {
      answers[slot] = answer;
      const { referenceNo } = await paidVa(slot, { callbackAck: 'any-200' });
      const x = await waitFor(`an attempt at ${slot}`, async () => {
        const y = await notificationOf(referenceNo);
        return y.attemptCount >= 1 && y;
      });
      assert.notEqual(x.state, 'delivered', slot);
    }
  });

  it('refuses a callbackVaBody or callbackAck it does not know (400), saving nothing', async () => {
    const m = await gw.createMerchant({});
    for (const [field, value] of [
      ['callbackVaBody', 'xml'],
      ['callbackAck', 'loose'],
      ['callbackAck', 2002700],
    ] as const) {
      const r = await gw.admin('PATCH', `/merchants/${m.id}`, { [field]: value });
      assert.equal(r.status, 400, `${field}=${value}`);
      assert.match(JSON.stringify(r.body), new RegExp(field));
    }
    const again = await gw.admin('GET', `/merchants/${m.id}`);
    assert.equal(again.body.callbackVaBody, 'standard');
    assert.equal(again.body.callbackAck, 'strict');
    const created = await gw.admin('POST', '/merchants', { name: 'x', callbackAck: 'sometimes' });
    assert.equal(created.status, 400);
  });
});

// Review findings 1 and 2: PostgreSQL answered 500 to a NUL byte or a lone surrogate in any SNAP
// string field, additionalInfo, an admin path parameter or query, and to list cursors it did not
// issue. Every such input is refused at the edge with a clear 400, alike on both stores.
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { startGateway, type TestGateway } from '../helpers/gateway.ts';
import { authenticate, type SnapCaller, snapCall } from '../helpers/snap.ts';
import type { StoreUnderTest } from '../helpers/store-under-test.ts';

const idr = (value: string) => ({ value, currency: 'IDR' });
// As they arrive in JSON: the escapes \u0000 and \ud800 (a raw NUL is not even valid JSON).
const NUL = '\u0000';
const LONE = '\ud800';

export function badTextSuite(under: StoreUnderTest): void {
  describe(`control characters, unpaired surrogates and foreign cursors (${under.name})`, () => {
    let gw: TestGateway;
    let c: SnapCaller;
    let merchantId: string;
    let qrRef: string;
    let va: { virtualAccountNo: string; trxId: string; partnerServiceId: string; customerNo: string };
    let cleanup: () => Promise<void>;

    before(async () => {
      const opened = await under.open();
      cleanup = opened.cleanup;
      gw = await startGateway(opened.store ? { store: opened.store } : {});
      const m = await gw.createMerchant();
      merchantId = m.id;
      c = await authenticate(gw.url, m);
      const qr = await snapCall(gw.url, c, '/api/snap/v1.0/qr/qr-mpm-generate', {
        partnerReferenceNo: 'BT-1',
        amount: idr('1000.00'),
      });
      assert.equal(qr.status, 200, qr.text);
      qrRef = qr.body.referenceNo;
      const created = await snapCall(gw.url, c, '/api/snap/v1.0/transfer-va/create-va', {
        virtualAccountName: 'Budi',
        trxId: 'BT-VA-1',
        totalAmount: idr('5000.00'),
      });
      assert.equal(created.status, 200, created.text);
      va = created.body.virtualAccountData;
    });
    after(async () => {
      await gw.close();
      await cleanup();
    });

    const vaKeys = () => ({
      partnerServiceId: va.partnerServiceId,
      customerNo: va.customerNo,
      virtualAccountNo: va.virtualAccountNo,
    });
    const operations = (bad: string): Array<[string, string, string, Record<string, unknown>, string]> => [
      ['generate', 'POST', 'qr/qr-mpm-generate', { partnerReferenceNo: `X${bad}`, amount: idr('1.00') }, '4004701'],
      [
        'generate additionalInfo',
        'POST',
        'qr/qr-mpm-generate',
        { partnerReferenceNo: 'BT-2', amount: idr('1.00'), additionalInfo: { note: `a${bad}b` } },
        '4004701',
      ],
      ['query', 'POST', 'qr/qr-mpm-query', { originalReferenceNo: `${qrRef}${bad}`, serviceCode: '47' }, '4005101'],
      ['cancel', 'POST', 'qr/qr-mpm-cancel', { originalReferenceNo: qrRef, reason: `no${bad}` }, '4007701'],
      [
        'create-va',
        'POST',
        'transfer-va/create-va',
        { virtualAccountName: `Budi${bad}`, trxId: 'BT-VA-2', totalAmount: idr('1.00') },
        '4002701',
      ],
      ['inquiry-va', 'POST', 'transfer-va/inquiry-va', { ...vaKeys(), trxId: `T${bad}` }, '4003001'],
      ['status', 'POST', 'transfer-va/status', { ...vaKeys(), inquiryRequestId: `I${bad}` }, '4002601'],
      [
        'update-va',
        'PUT',
        'transfer-va/update-va',
        { ...vaKeys(), trxId: va.trxId, virtualAccountName: `N${bad}` },
        '4002801',
      ],
      [
        'delete-va',
        'DELETE',
        'transfer-va/delete-va',
        { ...vaKeys(), trxId: va.trxId, additionalInfo: { [`k${bad}`]: 1 } },
        '4003101',
      ],
    ];

    for (const [label, bad] of [
      ['a NUL byte', NUL],
      ['an unpaired surrogate', LONE],
      ['an escape character', '\u001b'],
    ] as const) {
      it(`answers 400xx01 naming the field for ${label}, on every payment operation`, async () => {
        for (const [name, method, op, body, code] of operations(bad)) {
          const r = await snapCall(gw.url, c, `/api/snap/v1.0/${op}`, body, { method });
          assert.equal(r.status, 400, `${name}: ${r.text}`);
          assert.equal(r.body.responseCode, code, `${name}: ${r.text}`);
          assert.match(r.body.responseMessage, /^Invalid Field Format \{.+\}$/, name);
        }
        // Nothing was written: the QRIS and the VA are as they were.
        const qr = await snapCall(gw.url, c, '/api/snap/v1.0/qr/qr-mpm-query', {
          originalReferenceNo: qrRef,
          serviceCode: '47',
        });
        assert.equal(qr.body.latestTransactionStatus, '01');
      });
    }

    it('keeps tabs, new lines and any real Unicode text', async () => {
      const r = await snapCall(gw.url, c, '/api/snap/v1.0/qr/qr-mpm-generate', {
        partnerReferenceNo: 'BT-UNI',
        amount: idr('1.00'),
        additionalInfo: { note: 'Terima kasih\tya\n🙏 — Rp' },
      });
      assert.equal(r.status, 200, r.text);
    });

    it('names the field in a SNAP answer', async () => {
      const r = await snapCall(gw.url, c, '/api/snap/v1.0/qr/qr-mpm-generate', {
        partnerReferenceNo: 'BT-3',
        amount: idr('1.00'),
        additionalInfo: { deep: [{ note: `x${NUL}` }] },
      });
      assert.deepEqual(r.body, {
        responseCode: '4004701',
        responseMessage: 'Invalid Field Format {additionalInfo.deep[0].note}',
      });
    });

    it('answers 400 to such text in an admin path, query or body', async () => {
      for (const [method, path, body] of [
        ['GET', `/merchants/m${encodeURIComponent(NUL)}`, undefined],
        ['GET', `/providers/p${encodeURIComponent(NUL)}/inbound`, undefined],
        ['GET', `/transactions?merchantId=m${encodeURIComponent(NUL)}`, undefined],
        ['GET', `/notifications?merchantId=m${encodeURIComponent('\u0007')}`, undefined],
        ['PATCH', `/merchants/${merchantId}`, { name: `n${NUL}` }],
        ['POST', '/merchants', { name: `n${LONE}` }],
      ] as const) {
        const r = await gw.admin(method, path, body);
        assert.equal(r.status, 400, `${method} ${path}: ${JSON.stringify(r.body)}`);
        assert.match(r.body.errors.join(), /control characters and unpaired surrogates are not allowed/);
      }
      // A surrogate cannot be percent-encoded as UTF-8: its CESU-8 bytes are not text at all.
      for (const path of ['/transactions/r%ED%A0%80', '/merchants?cursor=%ED%A0%80']) {
        const r = await gw.admin('GET', path);
        assert.equal(r.status, 400, `${path}: ${JSON.stringify(r.body)}`);
      }
      assert.notEqual((await gw.admin('GET', `/merchants/${merchantId}`)).body.name, `n${NUL}`);
    });

    it('answers 400 to a list cursor it did not issue, and pages with one it did', async () => {
      const cursor = (v: unknown) => Buffer.from(JSON.stringify(v)).toString('base64url');
      for (const bad of [
        cursor([1.5, 'x']),
        cursor([2 ** 63, 'x']),
        cursor([0, NUL]),
        cursor([-1, 'x']),
        cursor(['1', 'x']),
        cursor([1, 'x', 2]),
        'not-a-cursor',
        `${cursor([1, 'x'])}=`,
      ]) {
        for (const list of ['/merchants', '/transactions', '/notifications', '/providers']) {
          const r = await gw.admin('GET', `${list}?cursor=${encodeURIComponent(bad)}`);
          assert.equal(r.status, 400, `${list} ${bad}: ${JSON.stringify(r.body)}`);
          assert.match(JSON.stringify(r.body), /not a cursor this gateway issued/);
        }
      }
      await gw.createMerchant();
      const first = await gw.admin('GET', '/merchants?limit=1');
      const next = await gw.admin('GET', `/merchants?limit=1&cursor=${first.body.nextCursor}`);
      assert.equal(next.status, 200);
      assert.notEqual(next.body.items[0].id, first.body.items[0].id);
    });

    it('answers a refused admin path with a problem, never the database’s words, and audits it without the text', async () => {
      const r = await gw.admin('POST', `/notifications/${encodeURIComponent(NUL)}/replay`);
      assert.equal(r.status, 400, JSON.stringify(r.body));
      assert.equal(r.body.title, 'Bad Request');
      assert.doesNotMatch(JSON.stringify(r.body), /UTF8|22021|byte sequence/);
      const last = (await gw.admin('GET', '/audit?limit=1')).body.items[0];
      assert.equal(last.action, 'POST /admin/v1/notifications/:id/replay');
      assert.equal(last.httpStatus, 400);
      assert.equal(last.target, null);
    });

    it('answers 401 Unknown Client, not 500, to such text in an upstream provider path', async () => {
      const r = await fetch(`${gw.url}/upstream/${encodeURIComponent(`p${NUL}`)}/webhook/payment-qr-notification`, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: '{}',
      });
      assert.equal(r.status, 401);
      assert.deepEqual(await r.json(), { responseCode: '4012600', responseMessage: 'Unauthorized. [Unknown Client]' });
    });
  });
}

import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { after, before, describe, it } from 'node:test';
import { callbackHmacStringToSign, verifyHmacSha512 } from '@snapgate/snap';
import { startGateway, type TestGateway } from '../helpers/gateway.ts';
import { ACK, type Received, startReceiver, waitFor } from '../helpers/receiver.ts';
import { authenticate, postToken, type SnapCaller, snapCall } from '../helpers/snap.ts';

const idr = (value: string) => ({ value, currency: 'IDR' });
const hasPhp = spawnSync('php', ['-v']).status === 0;
// CI installs php-cli: there the comparison must run, never be skipped.
const skip = !hasPhp && !process.env.CI ? 'php is not installed (apt-get install php-cli)' : false;

/**
 * What a Laravel app hashes when it re-encodes the request it parsed: ConvertEmptyStringsToNull
 * has turned every "" into null, then `json_encode($request->all())`.
 */
function laravelReencode(body: string): string {
  const script =
    '$d = json_decode(file_get_contents("php://stdin"), true); array_walk_recursive($d, function (&$v) { if ($v === "") { $v = null; } }); echo json_encode($d);';
  const r = spawnSync('php', ['-r', script], { input: body, encoding: 'utf8' });
  assert.equal(r.status, 0, r.stderr);
  return r.stdout;
}

/** What PHP writes for the decoded body: `json_encode(json_decode($body))`. */
function phpReencode(body: string): string {
  const r = spawnSync('php', ['-r', 'echo json_encode(json_decode(file_get_contents("php://stdin")));'], {
    input: body,
    encoding: 'utf8',
  });
  assert.equal(r.status, 0, r.stderr);
  return r.stdout;
}

describe('callbackJson: php — the bytes PHP json_encode writes, signed and sent as stored', { skip }, () => {
  let gw: TestGateway;
  let receiver: Awaited<ReturnType<typeof startReceiver>>;
  let merchant: SnapCaller & { id: string };
  const seen: Received[] = [];

  before(async () => {
    receiver = await startReceiver((req, res) => {
      seen.push(req);
      res.writeHead(200, { 'content-type': 'application/json' }).end(ACK);
    });
    gw = await startGateway({ dispatch: true });
    const m = await gw.createMerchant({ name: 'Toko PHP', callbackBaseUrl: receiver.baseUrl, callbackJson: 'php' });
    assert.equal(m.callbackJson, 'php');
    merchant = { ...(await authenticate(gw.url, m)), id: m.id };
  });
  after(async () => {
    await gw.close();
    await receiver.close();
  });

  async function callbackFor(referenceNo: string, status: string): Promise<Received> {
    return waitFor(
      `the ${status} callback of ${referenceNo}`,
      () =>
        seen.find((r) => {
          const b = JSON.parse(r.body);
          return b.originalReferenceNo === referenceNo && b.latestTransactionStatus === status;
        }),
      15_000,
    );
  }

  function assertPhpBytes(r: Received): void {
    assert.equal(r.body, phpReencode(r.body), 'the bytes sent are what PHP re-encodes');
    const data = callbackHmacStringToSign({
      path: r.url,
      partnerId: r.headers['x-partner-id'] as string,
      rawBody: r.body,
      timestamp: r.headers['x-timestamp'] as string,
    });
    assert.equal(verifyHmacSha512(merchant.clientSecret, data, r.headers['x-signature'] as string), true);
  }

  it('sends a QRIS callback with a / in the reference and a non-ASCII payer name as PHP writes it', async () => {
    const g = await snapCall(gw.url, merchant, '/api/snap/v1.0/qr/qr-mpm-generate', {
      partnerReferenceNo: 'INV/2026/11/001',
      amount: idr('25000.00'),
    });
    assert.equal(g.status, 200, g.text);
    const paid = await gw.admin('POST', `/sandbox/qris/${g.body.referenceNo}/pay`, { payerName: 'Siti Ñuñez 日本 😀' });
    assert.equal(paid.status, 200, JSON.stringify(paid.body));
    const r = await callbackFor(g.body.referenceNo, '00');
    assertPhpBytes(r);
    assert.match(r.body, /"originalPartnerReferenceNo":"INV\\\/2026\\\/11\\\/001"/);
    assert.match(r.body, /"payerName":"Siti \\u00d1u\\u00f1ez \\u65e5\\u672c \\ud83d\\ude00"/);
    const stored = await gw.store.notificationsOf(g.body.referenceNo);
    assert.equal(stored[0]?.body, r.body);
    assert.deepEqual(JSON.parse(r.body).additionalInfo.payerName, 'Siti Ñuñez 日本 😀');
  });

  it('sends empty payer fields and a VA name with / as PHP writes them', async () => {
    const acquirer = await gw.admin('POST', '/providers', {
      name: 'Acq',
      kind: 'acquirer',
      bankCode: '936',
      acquiresGatewayQris: true,
    });
    const token = await postToken(gw.url, {
      clientKey: acquirer.body.clientKey,
      clientSecret: acquirer.body.clientSecret,
    });
    const g = await snapCall(gw.url, merchant, '/api/snap/v1.0/qr/qr-mpm-generate', {
      partnerReferenceNo: 'INV/2026/11/002',
      amount: idr('1000.00'),
    });
    const pending = await snapCall(
      gw.url,
      {
        clientKey: acquirer.body.clientKey,
        clientSecret: acquirer.body.clientSecret,
        partnerId: acquirer.body.clientKey,
        accessToken: token.body.accessToken,
      },
      '/api/snap/v1.0/qr/qr-mpm-notify',
      { originalPartnerReferenceNo: g.body.referenceNo, latestTransactionStatus: '03', amount: idr('1000.00') },
    );
    assert.equal(pending.status, 200, pending.text);
    const r = await callbackFor(g.body.referenceNo, '03');
    assertPhpBytes(r);
    assert.deepEqual(
      [JSON.parse(r.body).additionalInfo.payerName, JSON.parse(r.body).additionalInfo.payerRefId],
      ['', ''],
    );
    // The sandbox acquirer pays the QRIS of the tests below again.
    const unnamed = await gw.admin('PATCH', `/providers/${acquirer.body.id}`, { acquiresGatewayQris: false });
    assert.equal(unnamed.status, 200);

    const va = await snapCall(gw.url, merchant, '/api/snap/v1.0/transfer-va/create-va', {
      virtualAccountName: 'PT Jaya/Abadi Ä',
      trxId: 'VA/2026/001',
      totalAmount: idr('150000.00'),
    });
    assert.equal(va.status, 200, va.text);
    const vaNo = va.body.virtualAccountData.virtualAccountNo as string;
    assert.equal((await gw.admin('POST', `/sandbox/va/${encodeURIComponent(vaNo)}/pay`, {})).status, 200);
    const txn = await gw.store.findTransactionByVirtualAccountNo(vaNo);
    const v = await callbackFor(txn?.referenceNo as string, '00');
    assertPhpBytes(v);
    assert.equal(v.url, '/webhook/payment-va-notification');
  });

  it('php-laravel: writes every empty string as null, the bytes a Laravel app re-encodes after ConvertEmptyStringsToNull', async () => {
    const patched = await gw.admin('PATCH', `/merchants/${merchant.id}`, { callbackJson: 'php-laravel' });
    assert.equal(patched.body.callbackJson, 'php-laravel');
    const g = await snapCall(gw.url, merchant, '/api/snap/v1.0/qr/qr-mpm-generate', {
      partnerReferenceNo: 'INV/2026/11/L01',
      amount: idr('1000.00'),
    });
    const canceled = await snapCall(gw.url, merchant, '/api/snap/v1.0/qr/qr-mpm-cancel', {
      originalReferenceNo: g.body.referenceNo,
      originalPartnerReferenceNo: 'INV/2026/11/L01',
      reason: 'customer left',
    });
    assert.equal(canceled.status, 200, canceled.text);
    const r = await callbackFor(g.body.referenceNo, '05');
    assert.match(r.body, /"payerName":null/);
    assert.match(r.body, /"originalPartnerReferenceNo":"INV\\\/2026\\\/11\\\/L01"/);
    assert.equal(r.body, laravelReencode(r.body), 'the bytes sent are what Laravel re-encodes');
    assertPhpBytes(r);
    // With `php` the empty strings stay, and Laravel's re-encoding differs from the bytes signed.
    await gw.admin('PATCH', `/merchants/${merchant.id}`, { callbackJson: 'php' });
    const g2 = await snapCall(gw.url, merchant, '/api/snap/v1.0/qr/qr-mpm-generate', {
      partnerReferenceNo: 'INV/2026/11/L02',
      amount: idr('1000.00'),
    });
    await snapCall(gw.url, merchant, '/api/snap/v1.0/qr/qr-mpm-cancel', {
      originalReferenceNo: g2.body.referenceNo,
      originalPartnerReferenceNo: 'INV/2026/11/L02',
      reason: 'customer left',
    });
    const plain = await callbackFor(g2.body.referenceNo, '05');
    assert.match(plain.body, /"payerName":""/);
    assert.notEqual(plain.body, laravelReencode(plain.body));
  });

  it('keeps a standard merchant’s bytes compact, with / and non-ASCII as themselves, and switches with PATCH', async () => {
    const patched = await gw.admin('PATCH', `/merchants/${merchant.id}`, { callbackJson: 'standard' });
    assert.equal(patched.body.callbackJson, 'standard');
    const g = await snapCall(gw.url, merchant, '/api/snap/v1.0/qr/qr-mpm-generate', {
      partnerReferenceNo: 'INV/2026/11/003',
      amount: idr('1000.00'),
    });
    assert.equal(
      (await gw.admin('POST', `/sandbox/qris/${g.body.referenceNo}/pay`, { payerName: 'Café' })).status,
      200,
    );
    const r = await callbackFor(g.body.referenceNo, '00');
    assert.match(r.body, /"originalPartnerReferenceNo":"INV\/2026\/11\/003"/);
    assert.match(r.body, /"payerName":"Café"/);
    assert.equal((await gw.admin('PATCH', `/merchants/${merchant.id}`, { callbackJson: 'xml' })).status, 400);
  });
});

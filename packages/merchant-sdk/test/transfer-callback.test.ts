import assert from 'node:assert/strict';
import { generateKeyPairSync } from 'node:crypto';
import { describe, it } from 'node:test';
import {
  callbackRsaStringToSign,
  formatJakartaTimestamp,
  hmacSha512Base64,
  rsaSha256SignBase64,
  serviceStringToSign,
} from '@snapgate/snap';
import { type RequestHandlerLike, TRANSFER_CALLBACK_PATH } from '../src/adapters.ts';
import { type CallbackResult, createTransferCallbackHandler, type TransferEvent } from '../src/callback-handler.ts';
import type { TransferNotification } from '../src/types.ts';
import { verifyCallback, verifyTransferCallback } from '../src/verify-callback.ts';
import {
  listen,
  notificationBody,
  PARTNER,
  post,
  QR_PATH,
  SECRET,
  signedHeaders,
  TRANSFER_PATH,
  transferBody,
} from './helpers.ts';

// docs/protocol.md#transfer-callbacks: the end of a transfer answered 202, signed as a payment
// callback, acknowledged with 200 2002600.

const NOW = Date.parse('2024-01-01T03:00:00Z');
const ACK = { responseCode: '2002600', responseMessage: 'Success' };
const opts = { clientSecret: SECRET, partnerId: PARTNER, now: NOW };
const request = (body: string, headers: Record<string, string>, path = TRANSFER_PATH) => ({
  method: 'POST',
  path,
  headers,
  rawBody: Buffer.from(body),
});
const signed = (body: string, o: Parameters<typeof signedHeaders>[1] = {}) =>
  signedHeaders(body, { path: TRANSFER_PATH, nowMs: NOW, ...o });

describe('verifyTransferCallback', () => {
  it('returns the typed transfer callback of a correctly signed one', () => {
    assert.equal(TRANSFER_CALLBACK_PATH, TRANSFER_PATH);
    const body = transferBody('00', 'PO7F3C');
    const n: TransferNotification = verifyTransferCallback(request(body, signed(body)), opts);
    assert.deepEqual(n, JSON.parse(body));
    assert.equal(n.latestTransactionStatus, '00');
    assert.equal(n.originalPartnerReferenceNo, 'PAY-PO7F3C');
    assert.deepEqual(n.additionalInfo, { batch: 'B-1' });
    const bare = transferBody('06', 'PO2', { additionalInfo: undefined });
    assert.deepEqual(verifyTransferCallback(request(bare, signed(bare)), opts).additionalInfo, {});
  });

  it('refuses what verifyCallback refuses: a tampered body, another path, a stale timestamp, another partner', () => {
    const body = transferBody('06');
    assert.throws(() => verifyTransferCallback(request(body.replace('"06"', '"00"'), signed(body)), opts), {
      httpStatus: 401,
      responseCode: '4012600',
      responseMessage: 'Unauthorized. [Invalid Signature]',
    });
    assert.throws(() => verifyTransferCallback(request(body, signed(body), QR_PATH), opts), {
      responseMessage: 'Unauthorized. [Invalid Signature]',
    });
    assert.throws(() => verifyTransferCallback(request(body, signed(body, { nowMs: NOW - 360_000 })), opts), {
      responseMessage: 'Unauthorized. [Timestamp Out Of Range]',
    });
    assert.throws(() => verifyTransferCallback(request(body, signed(body, { partnerId: 'EVIL' })), opts), {
      responseMessage: 'Unauthorized. [Unknown Partner]',
    });
    assert.throws(() => verifyTransferCallback({ ...request(body, signed(body)), method: 'GET' }, opts), {
      httpStatus: 405,
      responseCode: '4052601',
    });
    assert.throws(() => verifyTransferCallback(request(body, {}), { partnerId: PARTNER } as never), TypeError);
  });

  it('verifies rsa-sha256 and snap-b2b signatures as for payment callbacks', () => {
    const body = transferBody('00');
    const timestamp = formatJakartaTimestamp(NOW);
    const { privateKey, publicKey } = generateKeyPairSync('rsa', { modulusLength: 2048 });
    const rsaHeaders = {
      'x-timestamp': timestamp,
      'x-partner-id': PARTNER,
      'x-signature': rsaSha256SignBase64(
        privateKey,
        callbackRsaStringToSign({ path: TRANSFER_PATH, rawBody: body, timestamp }),
      ),
    };
    const rsa = { gatewayPublicKeyPem: publicKey, partnerId: PARTNER, now: NOW };
    assert.equal(verifyTransferCallback(request(body, rsaHeaders), rsa).latestTransactionStatus, '00');
    const b2bHeaders = {
      authorization: 'Bearer TOKEN-1',
      'x-timestamp': timestamp,
      'x-partner-id': PARTNER,
      'x-signature': hmacSha512Base64(
        SECRET,
        serviceStringToSign({ method: 'POST', path: TRANSFER_PATH, accessToken: 'TOKEN-1', rawBody: body, timestamp }),
      ),
    };
    const b2b = { ...opts, snapB2b: { isValid: (t: string) => t === 'TOKEN-1' } };
    assert.equal(verifyTransferCallback(request(body, b2bHeaders), b2b).serviceCode, '18');
    assert.throws(() => verifyTransferCallback(request(body, { ...b2bHeaders, authorization: 'Bearer X' }), b2b), {
      responseCode: '4012601',
    });
  });

  it('refuses a signed body that is not a transfer callback with a 400, naming the field', () => {
    const cases: Array<[string, string]> = [
      ['not json', '4002600'],
      [notificationBody('00'), '4002602'], // a payment notification: no serviceCode
      [transferBody('01'), '4002601'],
      [transferBody('00', 'PO-1', { serviceCode: '47' }), '4002601'],
      [transferBody('00', 'PO-1', { serviceCode: 18 }), '4002601'],
      [transferBody('00', 'PO-1', { beneficiaryAccountNo: undefined }), '4002602'],
      [transferBody('00', 'PO-1', { originalReferenceNo: '' }), '4002602'],
      [transferBody('00', 'PO-1', { amount: { value: 1500000, currency: 'IDR' } }), '4002601'],
      [transferBody('00', 'PO-1', { additionalInfo: 'x' }), '4002601'],
    ];
    for (const [body, code] of cases) {
      assert.throws(() => verifyTransferCallback(request(body, signed(body)), opts), { responseCode: code }, body);
    }
  });

  it('is not taken for a payment by verifyCallback: 400 {serviceCode}, so no order is marked paid', () => {
    const body = transferBody('00');
    assert.throws(() => verifyCallback(request(body, signed(body)), opts), {
      httpStatus: 400,
      responseCode: '4002601',
      responseMessage: 'Invalid Field Format {serviceCode}',
    });
  });
});

describe('createTransferCallbackHandler', () => {
  async function receiver(onTransfer: (e: TransferEvent) => void | Promise<void> = () => undefined) {
    const events: TransferEvent[] = [];
    const outcomes: CallbackResult<TransferNotification>[] = [];
    const handler = createTransferCallbackHandler({
      clientSecret: SECRET,
      partnerId: PARTNER,
      onTransfer: async (e) => {
        await onTransfer(e);
        events.push(e);
      },
      onOutcome: (r) => outcomes.push(r),
    });
    const server = await listen(handler);
    const send = (body: string, headers = signedHeaders(body, { path: TRANSFER_PATH })) =>
      post(`${server.url}${TRANSFER_PATH}`, body, headers);
    return { events, outcomes, send, handler, close: server.close };
  }

  it('acknowledges a verified transfer callback with 200 2002600 after onTransfer, with its end', async () => {
    const r = await receiver();
    try {
      const res = await r.send(transferBody('00', 'PO-A'));
      assert.deepEqual([res.status, res.body], [200, ACK]);
      const failed = await r.send(transferBody('06', 'PO-B'));
      assert.deepEqual([failed.status, failed.body], [200, ACK]);
      assert.deepEqual(
        r.events.map((e) => [e.action, e.status, e.previousStatus, e.path, e.notification.originalPartnerReferenceNo]),
        [
          ['PAID', '00', undefined, TRANSFER_PATH, 'PAY-PO-A'],
          ['FAILED', '06', undefined, TRANSFER_PATH, 'PAY-PO-B'],
        ],
      );
      assert.deepEqual(r.events[0]?.notification.amount, { value: '1500000.00', currency: 'IDR' });
      assert.match(r.events[0]?.externalId as string, /^\d+$/);
      assert.deepEqual(
        r.outcomes.map((o) => [o.outcome, o.action]),
        [
          ['applied', 'PAID'],
          ['applied', 'FAILED'],
        ],
      );
    } finally {
      await r.close();
    }
  });

  it('drops a duplicate X-EXTERNAL-ID and a status that does not move the transfer on, acknowledging both', async () => {
    const r = await receiver();
    try {
      const body = transferBody('03', 'PO-C');
      await r.send(body, signedHeaders(body, { path: TRANSFER_PATH, externalId: '1' }));
      const dup = await r.send(body, signedHeaders(body, { path: TRANSFER_PATH, externalId: '1' }));
      assert.deepEqual([dup.status, dup.body], [200, ACK]);
      await r.send(transferBody('00', 'PO-C'));
      const late = await r.send(transferBody('06', 'PO-C'));
      assert.deepEqual([late.status, late.body], [200, ACK]);
      assert.deepEqual(
        r.events.map((e) => [e.action, e.previousStatus]),
        [
          ['WAIT', undefined],
          ['PAID', '03'],
        ],
      );
      assert.deepEqual(
        r.outcomes.map((o) => o.outcome),
        ['applied', 'duplicate', 'applied', 'stale'],
      );
    } finally {
      await r.close();
    }
  });

  it('answers 500 when onTransfer throws and records nothing, so the gateway’s retry is applied', async () => {
    let fail = true;
    const r = await receiver(() => {
      if (fail) throw new Error('database down');
    });
    try {
      const body = transferBody('06', 'PO-D');
      const res = await r.send(body, signedHeaders(body, { path: TRANSFER_PATH, externalId: '7' }));
      assert.deepEqual([res.status, res.body], [500, { responseCode: '5002600', responseMessage: 'General Error' }]);
      fail = false;
      const retry = await r.send(body, signedHeaders(body, { path: TRANSFER_PATH, externalId: '7' }));
      assert.deepEqual([retry.status, retry.body], [200, ACK]);
      assert.deepEqual(
        r.events.map((e) => e.action),
        ['FAILED'],
      );
    } finally {
      await r.close();
    }
  });

  it('refuses a tampered body 401 and a payment notification 400, never calling onTransfer', async () => {
    const r = await receiver();
    try {
      const body = transferBody('06', 'PO-E');
      const tampered = await r.send(body.replace('"06"', '"00"'), signedHeaders(body, { path: TRANSFER_PATH }));
      assert.deepEqual(tampered, {
        status: 401,
        body: { responseCode: '4012600', responseMessage: 'Unauthorized. [Invalid Signature]' },
      });
      const payment = notificationBody('00');
      const wrongKind = await r.send(payment, signedHeaders(payment, { path: TRANSFER_PATH }));
      assert.equal(wrongKind.status, 400);
      assert.deepEqual(wrongKind.body, {
        responseCode: '4002602',
        responseMessage: 'Invalid Mandatory Field {serviceCode}',
      });
      assert.equal(r.events.length, 0);
      assert.deepEqual(
        r.outcomes.map((o) => o.outcome),
        ['rejected', 'rejected'],
      );
    } finally {
      await r.close();
    }
  });

  it('is mounted by the adapters as any handler, and refuses options without a key or a partner', async () => {
    const handler: RequestHandlerLike = createTransferCallbackHandler({
      clientSecret: SECRET,
      partnerId: PARTNER,
      onTransfer: () => undefined,
    });
    const body = transferBody('00');
    const r = await handler.handle({
      method: 'POST',
      path: TRANSFER_PATH,
      headers: signedHeaders(body, { path: TRANSFER_PATH }),
      rawBody: body,
    });
    assert.deepEqual([r.httpStatus, r.body], [200, ACK]);
    assert.throws(
      () => createTransferCallbackHandler({ partnerId: PARTNER, onTransfer: () => undefined } as never),
      /createTransferCallbackHandler: give exactly one/,
    );
    assert.throws(
      () => createTransferCallbackHandler({ clientSecret: 's', partnerId: '', onTransfer: () => undefined }),
      /createTransferCallbackHandler: partnerId is required/,
    );
  });
});

import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { callbackUrlOf } from '../../src/delivery/callback-signing.ts';
import type { MerchantRecord, NotificationKind } from '../../src/records/records.ts';

const m = (over: Partial<MerchantRecord>) =>
  ({ callbackBaseUrl: null, qrisCallbackUrl: null, vaCallbackUrl: null, ...over }) as MerchantRecord;

describe('where a callback goes (docs/protocol.md#callbacks)', () => {
  it('joins the webhook path to the base URL, with or without a trailing slash', () => {
    assert.equal(
      callbackUrlOf(m({ callbackBaseUrl: 'https://m.example' }), 'qris'),
      'https://m.example/webhook/payment-qr-notification',
    );
    assert.equal(
      callbackUrlOf(m({ callbackBaseUrl: 'https://m.example/shop/' }), 'va'),
      'https://m.example/shop/webhook/payment-va-notification',
    );
  });
  it('keeps a query on the base URL a query', () => {
    assert.equal(
      callbackUrlOf(m({ callbackBaseUrl: 'https://m.example/shop?tenant=7' }), 'qris'),
      'https://m.example/shop/webhook/payment-qr-notification?tenant=7',
    );
  });
  it('prefers the explicit per-kind URL, and has none when nothing is set', () => {
    assert.equal(
      callbackUrlOf(m({ callbackBaseUrl: 'https://a.example', vaCallbackUrl: 'https://b.example/va' }), 'va'),
      'https://b.example/va',
    );
    assert.equal(callbackUrlOf(m({}), 'qris'), undefined);
  });
  it('has none for a kind this version does not know, never another kind’s', () => {
    const merchant = m({ callbackBaseUrl: 'https://a.example', transferCallbackUrl: 'https://b.example/t' });
    assert.equal(callbackUrlOf(merchant, 'cheque' as NotificationKind), undefined);
    assert.equal(callbackUrlOf(merchant, 'transfer'), 'https://b.example/t');
  });
});

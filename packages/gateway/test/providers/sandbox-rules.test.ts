// The console's sandbox actions: offered only where the gateway's status machine and routing take
// them, and a refusal said in plain words (never a bare SNAP code).
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { sandboxActions } from '../../src/console/pages/sandbox.ts';
import { conflict, notFound } from '../../src/domain-error.ts';
import type { MerchantRecord } from '../../src/merchants/merchant-service.ts';
import { IllegalStatusChange } from '../../src/payments/status-change.ts';
import type { TransactionRecord } from '../../src/payments/transaction-reads.ts';
import type { ProviderRecord } from '../../src/providers/provider-service.ts';
import { ProviderRefusal } from '../../src/providers/sandbox-providers.ts';
import {
  blockedReason,
  notOfferedText,
  refusalStatus,
  refusalText,
  sandboxOffers,
  sandboxServes,
  vaAmountRefusal,
} from '../../src/providers/sandbox-rules.ts';

const NOW = Date.parse('2026-11-26T10:00:00+07:00');

function txn(kind: 'qris' | 'va', status: TransactionRecord['status'], more: Partial<TransactionRecord> = {}) {
  return {
    referenceNo: 'QR2611261000000001',
    merchantId: 'm-1',
    partnerReferenceNo: 'ORDER-1',
    kind,
    status,
    statusDesc: null,
    amount: '10000.00',
    expiresAt: NOW + 600_000,
    virtualAccountNo: kind === 'va' ? '   99912345678' : null,
    details: kind === 'va' ? { bankCode: '999' } : { qrContent: '000201' },
    ...more,
  } as unknown as TransactionRecord;
}
const refusal = (responseCode: string, responseMessage: string) =>
  new ProviderRefusal({
    httpStatus: Number(responseCode.slice(0, 3)),
    body: { responseCode, responseMessage },
    raw: '',
  });
const none = { pay: false, pend: false, fail: false };

describe('sandbox actions the console offers', () => {
  it('a QRIS: pay, pend and fail while Initiated; pay and fail while Paying or Pending; nothing once paid, refunded, cancelled, failed or expired', () => {
    assert.deepEqual(sandboxOffers(txn('qris', '01'), NOW, true), { pay: true, pend: true, fail: true });
    for (const s of ['02', '03'] as const) {
      assert.deepEqual(sandboxOffers(txn('qris', s), NOW, true), { pay: true, pend: false, fail: true }, s);
    }
    for (const s of ['00', '04', '05', '06'] as const)
      assert.deepEqual(sandboxOffers(txn('qris', s), NOW, true), none, s);
    assert.deepEqual(sandboxOffers(txn('qris', '01', { expiresAt: NOW - 1 }), NOW, true), none);
    // Another acquirer's QRIS: the sandbox acquirer cannot report it, only the notification is sent again.
    assert.deepEqual(sandboxOffers(txn('qris', '01'), NOW, false), { pay: false, pend: true, fail: false });
  });

  it('a VA: paid while open, before its expiry, and when no registered bank has its bank code', () => {
    assert.deepEqual(sandboxOffers(txn('va', '01'), NOW, true), { pay: true, pend: false, fail: false });
    for (const s of ['00', '04', '05', '06'] as const)
      assert.deepEqual(sandboxOffers(txn('va', s), NOW, true), none, s);
    assert.deepEqual(sandboxOffers(txn('va', '01', { expiresAt: NOW }), NOW, true), none);
    assert.deepEqual(sandboxOffers(txn('va', '01', { expiresAt: null }), NOW, true).pay, true);
    const bank = {
      id: 'b',
      kind: 'bank',
      isSandbox: false,
      bankCode: '999',
      acquiresGatewayQris: false,
    } as ProviderRecord;
    assert.equal(sandboxServes(txn('va', '01'), undefined, [bank]), false);
    assert.equal(sandboxServes(txn('va', '01'), undefined, [{ ...bank, bankCode: '014' }]), true);
  });

  it('a QRIS is the sandbox acquirer’s unless an upstream acquirer issued it or the merchant is routed elsewhere', () => {
    const sandbox = { id: 'sa', kind: 'acquirer', isSandbox: true, acquiresGatewayQris: false } as ProviderRecord;
    const other = { id: 'oa', kind: 'acquirer', isSandbox: false, acquiresGatewayQris: false } as ProviderRecord;
    const merchant = (qrisProvider: string | null) => ({ qrisProvider }) as MerchantRecord;
    assert.equal(sandboxServes(txn('qris', '01'), merchant(null), [sandbox, other]), true);
    assert.equal(sandboxServes(txn('qris', '01'), merchant('sa'), [sandbox, other]), true);
    assert.equal(sandboxServes(txn('qris', '01'), merchant('oa'), [sandbox, other]), false);
    assert.equal(
      sandboxServes(txn('qris', '01'), merchant(null), [sandbox, { ...other, acquiresGatewayQris: true }]),
      false,
    );
    const upstream = txn('qris', '01', { details: { qrContent: '', upstream: { providerId: 'oa' } } } as never);
    assert.equal(sandboxServes(upstream, merchant(null), [sandbox]), false);
  });

  it('an upstream QRIS has no expiry by the clock: Pend stays offered past its expiresAt', () => {
    const past = { expiresAt: NOW - 1 };
    const upstream = (status: TransactionRecord['status']) =>
      txn('qris', status, { ...past, details: { qrContent: '', upstream: { providerId: 'oa' } } } as never);
    // payments/expiry.ts: only reconciliation with its acquirer ends it; the gateway takes a Pend.
    assert.deepEqual(sandboxOffers(upstream('01'), NOW, false), { pay: false, pend: true, fail: false });
    assert.equal(blockedReason(upstream('01'), NOW, true), undefined);
    assert.doesNotMatch(blockedReason(upstream('01'), NOW, false) ?? '', /expired/);
    assert.match(blockedReason(upstream('03'), NOW, false) ?? '', /does not handle/);
    assert.match(notOfferedText(upstream('01'), 'pay', NOW, false), /sandbox acquirer does not handle/);
    // Ended by its acquirer, it is as any other: nothing.
    assert.deepEqual(sandboxOffers(upstream('06'), NOW, false), none);
    // One the gateway issued itself expires at its expiresAt: nothing, and the page says so.
    assert.deepEqual(sandboxOffers(txn('qris', '01', past), NOW, true), none);
    assert.match(blockedReason(txn('qris', '01', past), NOW) ?? '', /has expired \(at /);
  });

  it('an open-amount VA: Pay VA asks for an amount above 0.00, without the bill as a default', () => {
    const open = txn('va', '01', { amount: null });
    assert.deepEqual(sandboxOffers(open, NOW, true), { pay: true, pend: false, fail: false });
    const form = sandboxActions(open, 'csrf', { serves: true, offers: sandboxOffers(open, NOW, true) }, NOW).value;
    assert.match(form, /<input name="amount" inputmode="decimal" required>/);
    assert.doesNotMatch(form, /empty: the bill|placeholder/);
    // A closed VA: the amount may stay empty (the bill), which the placeholder shows.
    const closed = txn('va', '01');
    const closedForm = sandboxActions(closed, 'csrf', { serves: true, offers: sandboxOffers(closed, NOW, true) }, NOW);
    assert.match(
      closedForm.value,
      /Amount \(empty: the bill\)<input name="amount" inputmode="decimal" placeholder="10000\.00">/,
    );
    assert.doesNotMatch(closedForm.value, /required/);
  });
});

describe('a refused sandbox action, in plain words', () => {
  it('says paid, refunded, cancelled, failed or expired from the transaction as it is now', () => {
    assert.equal(
      refusalText(txn('va', '00'), refusal('4042414', 'Paid Bill'), NOW),
      'The VA 99912345678 (QR2611261000000001) is already paid: nothing was changed.',
    );
    assert.match(
      refusalText(txn('qris', '00'), conflict('cannot change'), NOW),
      /^QRIS \S+ is already paid: nothing was changed\.$/,
    );
    assert.match(refusalText(txn('qris', '04'), conflict('x'), NOW), /was refunded/);
    assert.match(
      refusalText(txn('qris', '05'), conflict('x'), NOW),
      /was cancelled: it can no longer be paid, pended or failed; nothing was changed\./,
    );
    assert.match(
      refusalText(txn('va', '06', { statusDesc: 'Expired' }), refusal('4042419', 'Invalid Bill/Virtual Account'), NOW),
      /has expired \(at 2026-11-26 10:10:00 WIB\): it can no longer be paid; nothing was changed\.$/,
    );
    assert.match(refusalText(txn('qris', '06', { statusDesc: 'Failed' }), conflict('x'), NOW), /has failed/);
  });

  it('says the amount differs, or that the provider does not know it; never a bare SNAP code', () => {
    const amount = refusalText(txn('va', '01'), refusal('4042413', 'Invalid Amount'), NOW, '5000.00');
    assert.equal(
      amount,
      'The amount Rp 5.000,00 differs from the bill (Rp 10.000,00): nothing was paid. Leave the amount empty to pay the bill.',
    );
    assert.match(
      refusalText(txn('va', '01'), refusal('4042412', 'Invalid Bill/Virtual Account [Not Found]'), NOW),
      /sandbox bank found no such transaction/,
    );
    assert.match(
      refusalText(txn('qris', '01'), refusal('4045201', 'Transaction Not Found'), NOW),
      /sandbox acquirer found no such transaction/,
    );
    assert.match(refusalText(txn('qris', '01'), notFound('QRIS transaction'), NOW), /found no such transaction/);
    assert.match(
      refusalText(txn('qris', '03'), new IllegalStatusChange('03', '01'), NOW),
      /is 03 Pending: it cannot change to 01 Initiated, so nothing was changed/,
    );
    for (const text of [amount, refusalText(txn('va', '00'), refusal('4042414', 'Paid Bill'), NOW)]) {
      assert.doesNotMatch(text, /4042414|4042413|Paid Bill|Invalid Amount/);
    }
  });

  it('an amount a VA does not take, before it is tried: none or 0.00 on an open VA, anything not money', () => {
    const open = txn('va', '01', { amount: null });
    const anyAmount = 'Nothing was paid: this VA takes any amount: type one above 0.00.';
    assert.equal(vaAmountRefusal(open, undefined), anyAmount);
    assert.equal(vaAmountRefusal(open, '0.00'), anyAmount);
    assert.equal(vaAmountRefusal(open, '5000.00'), undefined);
    assert.equal(vaAmountRefusal(open, '0.01'), undefined);
    assert.match(vaAmountRefusal(open, '5.000,00') ?? '', /the amount “5\.000,00” is not a money value like 10000\.00/);
    assert.equal(vaAmountRefusal(txn('va', '01'), undefined), undefined, 'a closed VA: empty pays the bill');
    assert.match(vaAmountRefusal(txn('va', '01'), 'abc') ?? '', /not a money value/);
    // Refused by the gateway anyway (an older page): said the same way, never "differs from the bill (Rp 0,00)".
    assert.equal(refusalText(open, refusal('4042513', 'Invalid Amount'), NOW, '0.00'), anyAmount);
  });

  it('the status a refusal stands for in the audit log: 400 what was typed, 409 the state', () => {
    assert.equal(refusalStatus(refusal('4042513', 'Invalid Amount')), 400);
    assert.equal(refusalStatus(refusal('4002501', 'Invalid Field Format')), 400);
    assert.equal(refusalStatus(refusal('4042414', 'Paid Bill')), 409);
    assert.equal(refusalStatus(refusal('4042419', 'Invalid Bill/Virtual Account [Expired]')), 409);
    assert.equal(refusalStatus(new IllegalStatusChange('00', '06')), 409);
    assert.equal(refusalStatus(conflict('x')), 409);
  });

  it('a stale page: why the action is not offered any more', () => {
    assert.match(notOfferedText(txn('qris', '00'), 'fail', NOW, true), /already paid: nothing was changed/);
    assert.match(notOfferedText(txn('qris', '03'), 'pend', NOW, true), /only an Initiated \(01\) QRIS/);
    assert.match(notOfferedText(txn('va', '01'), 'pay', NOW, false), /sandbox bank does not handle/);
    assert.equal(blockedReason(txn('qris', '01'), NOW), undefined);
  });
});

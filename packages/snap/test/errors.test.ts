import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { isSnapError, type SnapError, snapError, successCode } from '../src/index.ts';

describe('SnapError', () => {
  it('composes HTTP status, service code and case code', () => {
    const e = snapError('INVALID_MANDATORY_FIELD', '71', { field: 'X-TIMESTAMP' });
    assert.deepEqual(e.toBody(), {
      responseCode: '4007102',
      responseMessage: 'Invalid Mandatory Field {X-TIMESTAMP}',
    });
    assert.equal(e.httpStatus, 400);
  });

  it('puts the reason in brackets and keeps detail private', () => {
    const e = snapError('UNAUTHORIZED', '71', { reason: 'Invalid Signature', detail: { clientKey: 'x' } });
    assert.deepEqual(e.toBody(), { responseCode: '4017100', responseMessage: 'Unauthorized. [Invalid Signature]' });
    assert.equal(JSON.stringify(e.toBody()).includes('clientKey'), false);
  });

  it('covers every case code of the table', () => {
    const expected: Array<[ConstructorParameters<typeof SnapError>[0], string, string]> = [
      ['BAD_REQUEST', '4004700', 'Bad Request'],
      ['INVALID_FIELD_FORMAT', '4004701', 'Invalid Field Format'],
      ['INVALID_MANDATORY_FIELD', '4004702', 'Invalid Mandatory Field'],
      ['UNAUTHORIZED', '4014700', 'Unauthorized.'],
      ['INVALID_TOKEN', '4014701', 'Invalid Token (B2B)'],
      ['TRANSACTION_NOT_FOUND', '4044701', 'Transaction Not Found'],
      ['INVALID_BILL', '4044712', 'Invalid Bill/Virtual Account'],
      ['INVALID_AMOUNT', '4044713', 'Invalid Amount'],
      ['NOT_ALLOWED', '4054701', 'Requested Operation Is Not Allowed'],
      ['CONFLICT', '4094700', 'Conflict'],
      ['DUPLICATE_PARTNER_REFERENCE_NO', '4094701', 'Duplicate partnerReferenceNo'],
      ['TOO_MANY_REQUESTS', '4294700', 'Too Many Requests'],
      ['GENERAL_ERROR', '5004700', 'General Error'],
    ];
    for (const [name, code, message] of expected) {
      const e = snapError(name, '47');
      assert.deepEqual(e.toBody(), { responseCode: code, responseMessage: message });
      assert.equal(String(e.httpStatus), code.slice(0, 3));
      assert.equal(isSnapError(e), true);
    }
  });

  it('gives success codes', () => {
    assert.equal(successCode('71'), '2007100');
    assert.equal(successCode('26'), '2002600');
  });
});

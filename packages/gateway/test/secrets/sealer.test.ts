// The sealer: a record opens only at the place it was sealed for; a record of the first form
// (one constant AAD, before seals named their place) still opens, and is rewritten in form 2.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { createSealer, SealError } from '../../src/secrets/sealer.ts';
import { openAsEarlierVersion, sealForm1 } from '../helpers/legacy-seal.ts';

const K1 = Buffer.alloc(32, 0x11);
const K2 = Buffer.alloc(32, 0x22);
const A = 'merchants.client_secret/m_a';
const B = 'merchants.client_secret/m_b';
// Sealed under K1 by snapgate at commit 385715a (form 1).
const FORM_1_VECTOR = 'sg1.02d449a3.qpqSiBLfNczlU9i8lHnuPu-YlYOH6ktqoYE_PIBDLMhAXM779ITB-fBz65MVTAxaIFQ04kXUxA';
const FORM_1_PLAIN = 'legacy-merchant-secret-0123';

describe('sealer', () => {
  it('opens a record only at the place it was sealed for, even once opened', () => {
    const sealer = createSealer(K1);
    const record = sealer.seal('secret-of-a', A);
    assert.match(record, /^sg1\.02d449a3\.2\.[A-Za-z0-9_-]+$/);
    assert.equal(sealer.unseal(record, A), 'secret-of-a');
    assert.throws(() => sealer.unseal(record, B), {
      name: 'SealError',
      message: `the secret at ${B} does not open under master key 02d449a3: sealed for another place, damaged, or a different key`,
    });
    assert.throws(() => sealer.unseal(record, 'merchants.other_column/m_a'), SealError);
    assert.equal(sealer.unseal(record, A), 'secret-of-a');
  });

  it('opens a record an earlier version sealed, anywhere, and rewrites it in form 2 under the key it names', () => {
    const sealer = createSealer(K2, [K1]);
    assert.equal(sealer.unseal(FORM_1_VECTOR, A), FORM_1_PLAIN);
    assert.equal(sealer.unseal(FORM_1_VECTOR, B), FORM_1_PLAIN);
    assert.equal(sealer.keyIdOfRecord(FORM_1_VECTOR), '02d449a3');
    const upgraded = sealer.upgrade(FORM_1_VECTOR, A) as string;
    assert.match(upgraded, /^sg1\.02d449a3\.2\./, 'still under the key it named');
    assert.equal(sealer.unseal(upgraded, A), FORM_1_PLAIN);
    assert.throws(() => sealer.unseal(upgraded, B), SealError);
    assert.equal(sealer.upgrade(upgraded, A), undefined, 'form 2 is left as it is');
    // A clear value (stored before sealing existed) is sealed under the current key.
    const sealed = sealer.upgrade('clear-secret', A) as string;
    assert.equal(sealer.keyIdOfRecord(sealed), sealer.currentKeyId);
    assert.equal(sealer.unseal(sealed, A), 'clear-secret');
  });

  it('re-seals under the current key in form 2 what is under another key or of form 1', () => {
    const old = createSealer(K1);
    const sealer = createSealer(K2, [K1]);
    const underK1 = old.seal('s', A);
    const rotated = sealer.reseal(underK1, A) as string;
    assert.equal(sealer.keyIdOfRecord(rotated), sealer.currentKeyId);
    assert.equal(sealer.unseal(rotated, A), 's');
    assert.equal(sealer.reseal(rotated, A), undefined);
    const fromForm1 = sealer.reseal(sealForm1(K2, 'f1'), A) as string;
    assert.match(fromForm1, /\.2\./);
    assert.equal(sealer.unseal(fromForm1, A), 'f1');
    assert.throws(() => sealer.reseal(underK1, B), SealError, 'a moved record is not re-sealed for its new place');
  });

  it('is refused, not taken for a clear secret, by an earlier version; an unknown form is refused here', () => {
    const record = createSealer(K1).seal('secret', A);
    assert.throws(() => openAsEarlierVersion(K1, record));
    assert.equal(
      openAsEarlierVersion(K1, FORM_1_VECTOR),
      FORM_1_PLAIN,
      'the helper reads form 1 as earlier versions did',
    );
    const unknown = record.replace('.2.', '.3.');
    assert.throws(() => createSealer(K1).unseal(unknown, A), { name: 'SealError', message: /unknown form/ });
  });
});

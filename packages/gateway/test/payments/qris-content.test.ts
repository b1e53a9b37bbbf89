import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import {
  buildQrisContent,
  crc16CcittFalse,
  parseEmvTlv,
  parseQrisContent,
  type QrisContentInput,
  qrisAmountFits,
} from '../../src/payments/qris-content.ts';

// An independent decoder, so the builder is not checked against its own parser.
type Tlv = { tag: string; length: number; value: string };

function walkTlv(content: string): Tlv[] {
  const out: Tlv[] = [];
  let i = 0;
  while (i < content.length) {
    const tag = content.slice(i, i + 2);
    const lengthText = content.slice(i + 2, i + 4);
    assert.match(tag, /^\d\d$/, `tag at ${i}`);
    assert.match(lengthText, /^\d\d$/, `length of tag ${tag}`);
    const length = Number.parseInt(lengthText, 10);
    const value = content.slice(i + 4, i + 4 + length);
    assert.equal(value.length, length, `tag ${tag} runs past the end`);
    out.push({ tag, length, value });
    i += 4 + length;
  }
  assert.equal(i, content.length);
  return out;
}

const pairs = (content: string) => walkTlv(content).map(({ tag, value }): [string, string] => [tag, value]);
const encode = (tags: [string, string][]) =>
  tags.map(([tag, value]) => `${tag}${String(value.length).padStart(2, '0')}${value}`).join('');

// Bit-serial CRC-16/CCITT-FALSE: one input bit at a time, MSB first.
function crcBitSerial(text: string): string {
  let crc = 0xffff;
  for (const byte of Buffer.from(text, 'utf8')) {
    for (let i = 7; i >= 0; i--) {
      const feedback = ((crc >> 15) & 1) ^ ((byte >> i) & 1);
      crc = (crc << 1) & 0xffff;
      if (feedback) crc ^= 0x1021;
    }
  }
  return crc.toString(16).toUpperCase().padStart(4, '0');
}

const withCrc = (payload: string) => `${payload}6304${crcBitSerial(`${payload}6304`)}`;

const NMID = 'ID1020021181745';
const base: QrisContentInput = {
  nmid: NMID,
  merchantName: 'Toko Sejahtera',
  merchantCity: 'Jakarta',
  mcc: '5411',
  amount: '10000.00',
  referenceNo: 'A1B2C3D4E5',
};

const top = (input: Partial<QrisContentInput>) => new Map(pairs(buildQrisContent({ ...base, ...input })));

// The example payload from the EMVCo MPM specification, with its published CRC A13A.
const EMVCO_EXAMPLE =
  '00020101021229300012D156000000000510A93FO3230Q31280012D15600000001030812345678520441115802CN' +
  '5914BEST TRANSPORT6007BEIJING64200002ZH0104最佳运输0202北京540523.7253031565502016233030412340603***' +
  '0708A60086670902ME91320016A0112233449988770708123456786304A13A';

describe('crc16CcittFalse', () => {
  it('gives the CRC-16/CCITT-FALSE check value 29B1 for "123456789"', () => {
    assert.equal(crc16CcittFalse('123456789'), '29B1');
  });

  it('gives FFFF, the initial value, for the empty string', () => {
    assert.equal(crc16CcittFalse(''), 'FFFF');
  });

  it('gives B915 for "A"', () => {
    assert.equal(crc16CcittFalse('A'), 'B915');
  });

  it('pads a small CRC to four hex digits', () => {
    assert.equal(crc16CcittFalse('REF227'), '0078');
  });

  it('reproduces the CRC of the EMVCo MPM example, computed over UTF-8 bytes', () => {
    assert.equal(crc16CcittFalse(EMVCO_EXAMPLE.slice(0, -4)), 'A13A');
  });

  it('agrees with a bit-serial implementation on the EMVCo example', () => {
    assert.equal(crcBitSerial(EMVCO_EXAMPLE.slice(0, -4)), 'A13A');
  });
});

describe('buildQrisContent', () => {
  const content = buildQrisContent({
    ...base,
    merchantName: 'Toko Sejahtera Abadi Jaya Makmur',
    merchantCity: 'Jakarta Selatan Raya',
    amount: '10000.50',
    terminalId: 'TERM01',
    storeId: 'STORE01',
    postalCode: '12190',
  });

  it('writes every QRIS tag with its value, in order, as an independent decoder reads them', () => {
    const tags = walkTlv(content);
    for (const { length, value } of tags) assert.equal(value.length, length);
    assert.deepEqual(
      tags.map(({ tag, value }) => [tag, value]),
      [
        ['00', '01'],
        ['01', '12'],
        ['26', '0018ID.CO.SNAPGATE.WWW011993600999102002118170215ID10200211817450303UMI'],
        ['51', '0014ID.CO.QRIS.WWW0215ID10200211817450303UMI'],
        ['52', '5411'],
        ['53', '360'],
        ['54', '10000.50'],
        ['58', 'ID'],
        ['59', 'Toko Sejahtera Abadi Jaya'],
        ['60', 'Jakarta Selatan'],
        ['61', '12190'],
        ['62', '0307STORE010510A1B2C3D4E50706TERM01'],
        ['63', crcBitSerial(content.slice(0, -4))],
      ],
    );
  });

  it('fills the merchant account template with the gateway GUID, a PAN derived from the NMID, the NMID and UMI', () => {
    const template = walkTlv(content).find((t) => t.tag === '26');
    assert.deepEqual(pairs(template?.value ?? ''), [
      ['00', 'ID.CO.SNAPGATE.WWW'],
      ['01', '9360099910200211817'],
      ['02', NMID],
      ['03', 'UMI'],
    ]);
  });

  it('puts the NMID under the QRIS GUID in tag 51', () => {
    const template = walkTlv(content).find((t) => t.tag === '51');
    assert.deepEqual(pairs(template?.value ?? ''), [
      ['00', 'ID.CO.QRIS.WWW'],
      ['02', NMID],
      ['03', 'UMI'],
    ]);
  });

  it('puts the store label, reference label and terminal label in tag 62', () => {
    const template = walkTlv(content).find((t) => t.tag === '62');
    assert.deepEqual(pairs(template?.value ?? ''), [
      ['03', 'STORE01'],
      ['05', 'A1B2C3D4E5'],
      ['07', 'TERM01'],
    ]);
  });

  it('ends with tag 63 holding a valid CRC over everything through "6304"', () => {
    assert.equal(content.slice(-8, -4), '6304');
    assert.equal(walkTlv(content).at(-1)?.tag, '63');
    assert.equal(content.slice(-4), crcBitSerial(content.slice(0, -4)));
  });

  it('leaves out tag 61 and the store and terminal labels when they are not given', () => {
    const tags = top({});
    assert.equal(tags.has('61'), false);
    assert.deepEqual(pairs(tags.get('62') ?? ''), [['05', 'A1B2C3D4E5']]);
  });

  it('treats an empty postal code, store or terminal label as absent', () => {
    const tags = top({ postalCode: '', storeId: '', terminalId: '' });
    assert.equal(tags.has('61'), false);
    assert.deepEqual(pairs(tags.get('62') ?? ''), [['05', 'A1B2C3D4E5']]);
  });

  it('uses the merchant PAN it is given instead of deriving one', () => {
    assert.deepEqual(pairs(top({ merchantPan: '9360001234567890' }).get('26') ?? '')[1], ['01', '9360001234567890']);
  });

  it('derives the same PAN from the same NMID every time', () => {
    assert.equal(buildQrisContent(base), buildQrisContent({ ...base }));
  });

  it('writes a whole-rupiah amount without its ".00"', () => {
    assert.equal(top({ amount: '10000.00' }).get('54'), '10000');
  });

  it('keeps a non-zero fraction with two digits', () => {
    assert.equal(top({ amount: '10000.50' }).get('54'), '10000.50');
    assert.equal(top({ amount: '0.01' }).get('54'), '0.01');
    assert.equal(top({ amount: '12.10' }).get('54'), '12.10');
  });

  it('accepts a 13-character whole amount, the most tag 54 holds', () => {
    assert.equal(top({ amount: '9999999999999.00' }).get('54'), '9999999999999');
  });

  it('truncates the merchant name to 25 characters and the city to 15', () => {
    const tags = top({ merchantName: 'ABCDEFGHIJKLMNOPQRSTUVWXYZ0123', merchantCity: 'Kota Jakarta Selatan' });
    assert.equal(tags.get('59'), 'ABCDEFGHIJKLMNOPQRSTUVWXY');
    assert.equal(tags.get('60'), 'Kota Jakarta Se');
  });

  it('throws a TypeError for an amount longer than 13 characters', () => {
    assert.throws(() => buildQrisContent({ ...base, amount: '9999999999999.99' }), TypeError);
    assert.throws(() => buildQrisContent({ ...base, amount: '99999999999.99' }), TypeError);
  });

  it('throws a TypeError for an amount that is not SNAP money', () => {
    for (const amount of ['10000', '10000.5', '-1.00', '1e3.00', '']) {
      assert.throws(() => buildQrisContent({ ...base, amount }), TypeError, amount);
    }
  });

  it('throws a TypeError for a non-ASCII merchant name, even past the truncation point', () => {
    assert.throws(() => buildQrisContent({ ...base, merchantName: 'Kopi Café' }), TypeError);
    assert.throws(() => buildQrisContent({ ...base, merchantName: `${'A'.repeat(25)}é` }), TypeError);
    assert.throws(() => buildQrisContent({ ...base, merchantCity: 'Tangerang\n' }), TypeError);
  });

  it('throws a TypeError for a reference, terminal or store label longer than 25 characters', () => {
    const long = 'R'.repeat(26);
    assert.throws(() => buildQrisContent({ ...base, referenceNo: long }), TypeError);
    assert.throws(() => buildQrisContent({ ...base, terminalId: long }), TypeError);
    assert.throws(() => buildQrisContent({ ...base, storeId: long }), TypeError);
  });

  it('throws a TypeError for an MCC that is not 4 digits, or a non-numeric PAN', () => {
    assert.throws(() => buildQrisContent({ ...base, mcc: '541' }), TypeError);
    assert.throws(() => buildQrisContent({ ...base, merchantPan: '93600A' }), TypeError);
    assert.throws(() => buildQrisContent({ ...base, merchantPan: '9'.repeat(20) }), TypeError);
  });

  it('throws a TypeError for an empty reference, name or NMID', () => {
    assert.throws(() => buildQrisContent({ ...base, referenceNo: '' }), TypeError);
    assert.throws(() => buildQrisContent({ ...base, merchantName: '' }), TypeError);
    assert.throws(() => buildQrisContent({ ...base, nmid: '' }), TypeError);
  });

  it('throws a TypeError when a template would exceed 99 characters', () => {
    assert.throws(() => buildQrisContent({ ...base, nmid: `ID${'1'.repeat(50)}` }), TypeError);
  });
});

describe('qrisAmountFits', () => {
  it('rejects 9999999999999.99, 16 characters in tag 54', () => {
    assert.equal(qrisAmountFits('9999999999999.99'), false);
  });

  it('accepts 9999999999999.00, written as 13 characters', () => {
    assert.equal(qrisAmountFits('9999999999999.00'), true);
  });

  it('accepts ordinary amounts and rejects what is not SNAP money', () => {
    assert.equal(qrisAmountFits('0.01'), true);
    assert.equal(qrisAmountFits('10000.50'), true);
    assert.equal(qrisAmountFits('10000.5'), false);
    assert.equal(qrisAmountFits(''), false);
  });
});

describe('parseEmvTlv', () => {
  it('splits one level into tags in order, leaving templates whole', () => {
    assert.deepEqual(
      [...parseEmvTlv('000201620705031236304ABCD')],
      [
        ['00', '01'],
        ['62', '0503123'],
        ['63', 'ABCD'],
      ],
    );
  });

  it('reads the EMVCo example, whose lengths count characters, not bytes', () => {
    assert.equal(parseEmvTlv(EMVCO_EXAMPLE).get('64'), '0002ZH0104最佳运输0202北京');
  });

  it('throws a TypeError for a value that runs past the end, a bad header or a repeated tag', () => {
    assert.throws(() => parseEmvTlv('000501'), TypeError);
    assert.throws(() => parseEmvTlv('0A0201'), TypeError);
    assert.throws(() => parseEmvTlv('000'), TypeError);
    assert.throws(() => parseEmvTlv('00020100020'), TypeError);
    assert.throws(() => parseEmvTlv('0002010002XY'), TypeError);
  });
});

describe('parseQrisContent', () => {
  const content = buildQrisContent({ ...base, amount: '10000.50', terminalId: 'TERM01' });

  it('reads back the reference, amount, NMID, name and city that were built', () => {
    const parsed = parseQrisContent(content);
    assert.deepEqual(
      parsed && {
        referenceNo: parsed.referenceNo,
        amount: parsed.amount,
        nmid: parsed.nmid,
        merchantName: parsed.merchantName,
        merchantCity: parsed.merchantCity,
      },
      {
        referenceNo: 'A1B2C3D4E5',
        amount: '10000.50',
        nmid: NMID,
        merchantName: 'Toko Sejahtera',
        merchantCity: 'Jakarta',
      },
    );
    assert.deepEqual([...(parsed?.tags ?? [])], pairs(content));
  });

  it('turns a whole-rupiah amount back into SNAP money', () => {
    assert.equal(parseQrisContent(buildQrisContent(base))?.amount, '10000.00');
    assert.equal(parseQrisContent(buildQrisContent({ ...base, amount: '0.01' }))?.amount, '0.01');
  });

  it('accepts a CRC written in lower case', () => {
    assert.equal(parseQrisContent(content.slice(0, -4) + content.slice(-4).toLowerCase())?.referenceNo, 'A1B2C3D4E5');
  });

  it('returns undefined when one character is changed, so the CRC no longer matches', () => {
    const flipped = content.replace('Toko', 'Tokp');
    assert.notEqual(flipped, content);
    assert.equal(parseQrisContent(flipped), undefined);
  });

  it('returns undefined for a truncated string', () => {
    assert.equal(parseQrisContent(content.slice(0, -1)), undefined);
    assert.equal(parseQrisContent(content.slice(0, content.length >> 1)), undefined);
  });

  it('returns undefined for a wrong length byte, even with the CRC recomputed', () => {
    const payload = content.slice(0, -8).replace('5914Toko Sejahtera', '5915Toko Sejahtera');
    assert.equal(parseQrisContent(withCrc(payload)), undefined);
  });

  it('returns undefined for garbage and for an empty string', () => {
    assert.equal(parseQrisContent('hello, world'), undefined);
    assert.equal(parseQrisContent('0'.repeat(40)), undefined);
    assert.equal(parseQrisContent(''), undefined);
  });

  it('returns undefined when tag 63 is not last', () => {
    assert.equal(parseQrisContent(`${content}9902XY`), undefined);
  });

  it('returns undefined when a required tag is missing, even with a valid CRC', () => {
    const payload = pairs(content).filter(([tag]) => tag !== '63');
    assert.notEqual(parseQrisContent(withCrc(encode(payload))), undefined);
    for (const missing of ['00', '01', '51', '52', '53', '54', '58', '59', '60', '62']) {
      const without = encode(payload.filter(([tag]) => tag !== missing));
      assert.equal(parseQrisContent(withCrc(without)), undefined, `without tag ${missing}`);
    }
  });

  it('returns undefined when tag 51 or 62 lacks the NMID or the reference label', () => {
    const payload = pairs(content).filter(([tag]) => tag !== '63');
    const replaced = (tag: string, value: string) =>
      encode(payload.map(([t, v]): [string, string] => [t, t === tag ? value : v]));
    assert.equal(parseQrisContent(withCrc(replaced('51', '0014ID.CO.QRIS.WWW0303UMI'))), undefined);
    assert.equal(parseQrisContent(withCrc(replaced('51', `0014ID.CO.XXXX.WWW0215${NMID}0303UMI`))), undefined);
    assert.equal(parseQrisContent(withCrc(replaced('62', '0706TERM01'))), undefined);
    assert.equal(parseQrisContent(withCrc(replaced('62', '05'))), undefined);
  });

  it('returns undefined for a static QR, which carries no payment of its own', () => {
    assert.equal(parseQrisContent(withCrc(content.slice(0, -8).replace('010212', '010211'))), undefined);
  });

  it('returns undefined for an amount QRIS does not allow', () => {
    assert.equal(parseQrisContent(withCrc(content.slice(0, -8).replace('540810000.50', '540810000.5X'))), undefined);
  });
});

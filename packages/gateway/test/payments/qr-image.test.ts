import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { renderQrPng, renderQrSvg } from '../../src/payments/qr-image.ts';
import { buildQrisContent } from '../../src/payments/qris-content.ts';

const content = buildQrisContent({
  nmid: 'ID1020021181745',
  merchantName: 'Toko Sejahtera',
  merchantCity: 'Jakarta',
  mcc: '5411',
  amount: '10000.00',
  referenceNo: 'A1B2C3D4E5',
});

const PNG_SIGNATURE = Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]);

describe('renderQrPng', () => {
  it('renders a QRIS payload as a PNG image', async () => {
    const png = await renderQrPng(content);
    assert.ok(png.length > PNG_SIGNATURE.length);
    assert.deepEqual(png.subarray(0, PNG_SIGNATURE.length), PNG_SIGNATURE);
  });
});

describe('renderQrSvg', () => {
  it('renders a QRIS payload as an SVG document', async () => {
    const svg = await renderQrSvg(content);
    assert.match(svg, /^(<svg|<\?xml)/);
    assert.match(svg, /<\/svg>\s*$/);
  });
});

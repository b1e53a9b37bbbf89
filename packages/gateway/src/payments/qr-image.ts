import QRCode, { type QRCodeRenderersOptions } from 'qrcode';

// Level M survives ~15% damage (a crumpled sticker) without making the code denser
// than phones scan comfortably; a 2-module quiet zone is enough on a screen.
const OPTIONS = { errorCorrectionLevel: 'M', margin: 2 } as const satisfies QRCodeRenderersOptions;

export function renderQrPng(content: string): Promise<Buffer> {
  return QRCode.toBuffer(content, { ...OPTIONS, type: 'png' });
}

export function renderQrSvg(content: string): Promise<string> {
  return QRCode.toString(content, { ...OPTIONS, type: 'svg' });
}

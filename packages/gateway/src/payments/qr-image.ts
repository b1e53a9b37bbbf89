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

/** Rendered QR images kept in memory, by the QRIS's checkout id and format. */
export interface QrImages {
  /** The image already rendered (or being rendered) for this checkout and format, if any. */
  cached(checkoutId: string, format: 'png' | 'svg'): Promise<Buffer | string> | undefined;
  png(checkoutId: string, content: string): Promise<Buffer>;
  svg(checkoutId: string, content: string): Promise<string>;
}

/**
 * One cache for the public image (`/pay/<id>/qr.png`) and the checkout page's inline SVG: a QR's
 * content never changes, so each is rendered once (concurrent requests share the rendering), and
 * the least recently used goes first past `entries`.
 */
export function createQrImages(entries = 2048): QrImages {
  const rendered = new Map<string, Promise<Buffer | string>>();
  const keyOf = (checkoutId: string, format: 'png' | 'svg') => `${checkoutId}.${format}`;
  function cached(checkoutId: string, format: 'png' | 'svg') {
    const key = keyOf(checkoutId, format);
    const hit = rendered.get(key);
    if (hit) {
      rendered.delete(key);
      rendered.set(key, hit);
    }
    return hit;
  }
  function render<T extends Buffer | string>(key: string, make: () => Promise<T>): Promise<T> {
    const image = make();
    rendered.set(key, image);
    image.catch(() => rendered.delete(key));
    if (rendered.size > entries) rendered.delete(rendered.keys().next().value as string);
    return image;
  }
  return {
    cached,
    png: (checkoutId, content) =>
      (cached(checkoutId, 'png') as Promise<Buffer> | undefined) ??
      render(keyOf(checkoutId, 'png'), () => renderQrPng(content)),
    svg: (checkoutId, content) =>
      (cached(checkoutId, 'svg') as Promise<string> | undefined) ??
      render(keyOf(checkoutId, 'svg'), () => renderQrSvg(content)),
  };
}

// The public QR image (review finding: rendered on every request, no cache, no limit, so a flood
// of one image starved other merchants' API calls), under the checkout's random id.
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { SqliteStore } from '../../src/store/sqlite/sqlite-store.ts';
import type { Store } from '../../src/store/store.ts';
import { startGateway, type TestGateway } from '../helpers/gateway.ts';
import { authenticate, snapCall } from '../helpers/snap.ts';

describe('GET /pay/<checkoutId>/qr.png', () => {
  let gw: TestGateway;
  let lookups = 0;
  let referenceNo: string;
  let checkoutId: string;
  let qrUrl: string;
  const dir = mkdtempSync(join(tmpdir(), 'snapgate-qr-'));
  before(async () => {
    // The real store, with its transaction lookups counted.
    const real = new SqliteStore({ file: join(dir, 'gw.db') });
    const store = new Proxy(real, {
      get(target, prop, receiver) {
        if (prop === 'findTransactionByCheckoutId') {
          return (id: string) => {
            lookups++;
            return target.findTransactionByCheckoutId(id);
          };
        }
        const v = Reflect.get(target, prop, receiver);
        return typeof v === 'function' ? v.bind(target) : v;
      },
    }) as Store;
    gw = await startGateway({ store, env: { SNAPGATE_QR_RATE_LIMIT: '40' } });
    const m = await gw.createMerchant();
    const c = await authenticate(gw.url, m);
    const qr = await snapCall(gw.url, c, '/api/snap/v1.0/qr/qr-mpm-generate', {
      partnerReferenceNo: 'QR-IMG-1',
      amount: { value: '1000.00', currency: 'IDR' },
    });
    referenceNo = qr.body.referenceNo;
    checkoutId = String(qr.body.additionalInfo.checkoutUrl).split('/').at(-1) as string;
    qrUrl = qr.body.qrUrl;
  });
  after(async () => {
    await gw.close();
    rmSync(dir, { recursive: true, force: true });
  });

  it('names, in qrUrl, the address the gateway listens on when SNAPGATE_PUBLIC_URL is not set', () => {
    assert.equal(qrUrl, `${gw.url}/pay/${checkoutId}/qr.png`);
    assert.doesNotMatch(qrUrl, /:0\//);
  });

  it('renders once: concurrent and later requests get the same bytes, with caching headers and an ETag', async () => {
    lookups = 0;
    const url = `${gw.url}/pay/${checkoutId}/qr.png`;
    const first = await Promise.all(Array.from({ length: 10 }, () => fetch(url)));
    const bodies = await Promise.all(first.map(async (r) => Buffer.from(await r.arrayBuffer())));
    for (const r of first) assert.equal(r.status, 200);
    assert.equal(new Set(bodies.map((b) => b.toString('base64'))).size, 1);
    const r = first[0] as Response;
    assert.equal(r.headers.get('content-type'), 'image/png');
    assert.equal(r.headers.get('cache-control'), 'public, max-age=86400, immutable');
    const etag = r.headers.get('etag');
    assert.equal(etag, `"${checkoutId}.png"`);
    const before = lookups;
    for (let i = 0; i < 10; i++) assert.equal((await fetch(url)).status, 200);
    assert.equal(lookups, before, 'a rendered image is served from memory: no lookup, no rendering');
    const revalidated = await fetch(url, { headers: { 'if-none-match': etag as string } });
    assert.equal(revalidated.status, 304);
    assert.equal((await revalidated.arrayBuffer()).byteLength, 0);
  });

  it('answers 404 for an unknown checkout, a referenceNo or another format, and 429 past the limit', async () => {
    assert.equal((await fetch(`${gw.url}/pay/AAAAAAAAAAAAAAAAAAAAAA/qr.png`)).status, 404);
    assert.equal((await fetch(`${gw.url}/pay/NOPE/qr.png`)).status, 404);
    assert.equal((await fetch(`${gw.url}/pay/${referenceNo}/qr.png`)).status, 404);
    assert.equal((await fetch(`${gw.url}/qr/${referenceNo}.png`)).status, 404);
    assert.equal((await fetch(`${gw.url}/pay/${checkoutId}/qr.gif`)).status, 404);
    let limited: Response | undefined;
    for (let i = 0; i < 60 && !limited; i++) {
      const r = await fetch(`${gw.url}/pay/${checkoutId}/qr.svg`);
      if (r.status === 429) limited = r;
      else assert.equal(r.status, 200);
    }
    assert.ok(limited, 'limited within the minute');
    assert.match(limited.headers.get('retry-after') ?? '', /^\d+$/);
    assert.equal((await limited.json()).status, 429);
  });
});

import assert from 'node:assert/strict';
import { readdirSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { describe, it } from 'node:test';
import { runDemo } from '../../src/cli/demo.ts';

describe('snapgate demo', () => {
  it('runs a gateway and the example merchant end to end and exits 0 with the order PAID', async () => {
    const demoDirs = () => readdirSync(tmpdir()).filter((d) => d.startsWith('snapgate-demo-'));
    const before = new Set(demoDirs());
    const out: string[] = [];
    const err: string[] = [];
    const code = await runDemo({ out: (s) => out.push(s), err: (s) => err.push(s) });
    const text = out.join('\n');
    assert.equal(code, 0, err.join('\n'));
    assert.match(text, /^1\. Started a sandbox gateway on http:\/\/127\.0\.0\.1:\d+/m);
    assert.match(text, /Took a B2B access token/);
    // The payment reaches the gateway through the acquirer's SNAP door, as in production.
    assert.match(text, /POST \/api\/snap\/v1\.0\/qr\/qr-mpm-notify with its own B2B token/);
    assert.match(text, /the gateway answered 2005200 after committing status 00/);
    assert.match(text, /Callback arrived at the merchant: POST \/webhook\/payment-qr-notification/);
    assert.match(text, /verified: HMAC-SHA512/);
    assert.match(text, /answered HTTP 200 \{"responseCode":"2002600","responseMessage":"Success"\}/);
    assert.match(text, /as delivered \(1 attempt\)/);
    assert.match(text, /Order ORD-\w+ is PAID/);
    assert.deepEqual(
      demoDirs().filter((d) => !before.has(d)),
      [],
      'its temporary folder is removed',
    );
  });
});

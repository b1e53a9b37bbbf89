import assert from 'node:assert/strict';
import type { IncomingMessage, ServerResponse } from 'node:http';
import { describe, it } from 'node:test';
import { type ExpressRequestLike, toExpress } from '../src/adapters.ts';
import { createCallbackHandler, readRawBody } from '../src/callback-handler.ts';
import { listen, notificationBody, PARTNER, post, SECRET, signedHeaders } from './helpers.ts';

const ACK = { responseCode: '2002600', responseMessage: 'Success' };

/** What Express does before a route: strips the mount path from req.url, maybe parses the body. */
function expressLike(mount: string, parse: 'none' | 'raw' | 'json', middleware: ReturnType<typeof toExpress>) {
  const errors: unknown[] = [];
  const listener = async (req: IncomingMessage, res: ServerResponse) => {
    const r = req as ExpressRequestLike;
    r.originalUrl = req.url;
    req.url = (req.url ?? '').slice(mount.length) || '/';
    if (parse === 'raw') r.body = await readRawBody(req, 1e6);
    if (parse === 'json') r.body = JSON.parse(String(await readRawBody(req, 1e6)));
    middleware(r, res, (e) => {
      errors.push(e);
      res.writeHead(500).end('{}');
    });
  };
  return { listener, errors };
}

describe('toExpress', () => {
  const handler = () => createCallbackHandler({ clientSecret: SECRET, partnerId: PARTNER, onStatus: () => undefined });
  const path = '/shop/webhook/payment-qr-notification';

  for (const parse of ['none', 'raw'] as const) {
    it(`verifies the signed originalUrl with ${parse === 'raw' ? 'express.raw() bytes' : 'the unread stream'}`, async () => {
      const e = expressLike('/shop', parse, toExpress(handler()));
      const server = await listen(e.listener);
      try {
        const body = notificationBody('00');
        const ok = await post(`${server.url}${path}`, body, signedHeaders(body, { path }));
        assert.equal(ok.status, 200);
        assert.deepEqual(ok.body, ACK);
        const bad = await post(`${server.url}${path}`, body.replace('SITI', 'BUDI'), signedHeaders(body, { path }));
        assert.equal(bad.status, 401);
        assert.deepEqual(bad.body, { responseCode: '4012600', responseMessage: 'Unauthorized. [Invalid Signature]' });
      } finally {
        await server.close();
      }
    });
  }

  it('passes a TypeError to next when express.json() already consumed the body', async () => {
    const e = expressLike('/shop', 'json', toExpress(handler()));
    const server = await listen(e.listener);
    try {
      const body = notificationBody('00');
      const r = await post(`${server.url}${path}`, body, signedHeaders(body, { path }));
      assert.equal(r.status, 500);
      assert.ok(e.errors[0] instanceof TypeError);
    } finally {
      await server.close();
    }
  });
});

// Guessing admin keys costs time (docs/operations.md#threat-model-and-limits): past 20 failed
// authentications from one address in a minute, the admin API and the console sign-in answer 429
// with Retry-After; a valid key is still accepted; SNAPGATE_RATE_LIMIT has no say; counted in
// metrics and logged without the key.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { ADMIN_TOKEN, startGateway, type TestGateway } from '../helpers/gateway.ts';

const ADMIN = '/admin/v1/merchants';

async function withKey(gw: TestGateway, key: string) {
  const res = await fetch(`${gw.url}${ADMIN}`, { headers: { authorization: `Bearer ${key}` } });
  return { status: res.status, retryAfter: res.headers.get('retry-after'), body: await res.json() };
}

/** One console sign-in attempt, as a browser makes it: the log-in page's cookie and form token, then the post. */
async function signIn(gw: TestGateway, key: string) {
  const page = await fetch(`${gw.url}/console/login`);
  const cookie = (page.headers.get('set-cookie') ?? '').split(';')[0] as string;
  const csrf = /name="_csrf" value="([^"]+)"/.exec(await page.text())?.[1] ?? '';
  const res = await fetch(`${gw.url}/console/login`, {
    method: 'POST',
    redirect: 'manual',
    headers: { 'content-type': 'application/x-www-form-urlencoded', cookie, origin: gw.url },
    body: new URLSearchParams({ _csrf: csrf, key }).toString(),
  });
  return { status: res.status, retryAfter: res.headers.get('retry-after'), text: await res.text() };
}

describe('failed admin-key authentications', () => {
  it('answers 429 with Retry-After past 20 failures from one address, and still takes a valid key', async () => {
    let offsetMs = 0;
    const gw = await startGateway({
      clock: { now: () => Date.now() + offsetMs },
      env: { SNAPGATE_RATE_LIMIT: 'off' },
    });
    try {
      for (let i = 0; i < 20; i++) {
        assert.equal((await withKey(gw, `wrong-key-${i}-guess`)).status, 401, `failure ${i + 1}`);
      }
      const limited = await withKey(gw, 'wrong-key-21-guess');
      assert.equal(limited.status, 429);
      assert.match(limited.body.detail, /too many failed authentications/);
      const wait = Number(limited.retryAfter);
      assert.ok(wait >= 1 && wait <= 60, `Retry-After ${limited.retryAfter}`);
      assert.equal((await withKey(gw, ADMIN_TOKEN)).status, 200, 'a valid key is accepted');
      // The console sign-in counts with the admin API, from the same address.
      const console = await signIn(gw, 'wrong-console-guess');
      assert.equal(console.status, 429);
      assert.ok(console.retryAfter);
      assert.match(console.text, /Too many failed log-ins/);
      const ok = await signIn(gw, ADMIN_TOKEN);
      assert.equal(ok.status, 303, 'a valid key still signs in');

      const metrics = await (
        await fetch(`${gw.url}/metrics`, { headers: { authorization: `Bearer ${ADMIN_TOKEN}` } })
      ).text();
      assert.match(metrics, /snapgate_auth_failures_total\{door="admin"\} 21/);
      assert.match(metrics, /snapgate_auth_failures_limited_total\{door="admin"\} 1/);
      assert.match(metrics, /snapgate_auth_failures_limited_total\{door="console"\} 1/);
      const warned = gw.logs.filter((l) => l.includes('too many failed admin-key authentications'));
      assert.equal(warned.length, 1, 'logged once, when the limit is first passed');
      assert.equal(
        gw.logs.some((l) => l.includes('wrong-key-')),
        false,
        'no presented key reaches the log',
      );

      // A minute later the window has passed.
      offsetMs = 61_000;
      assert.equal((await withKey(gw, 'wrong-key-after')).status, 401);
    } finally {
      await gw.close();
    }
  });

  it('limits guesses at one key prefix, whatever the address', async () => {
    const gw = await startGateway({ env: { SNAPGATE_TRUST_PROXY: 'true' } });
    try {
      const guess = async (i: number) =>
        (
          await fetch(`${gw.url}${ADMIN}`, {
            headers: { authorization: `Bearer sgprefix-${i}`, 'x-forwarded-for': `198.51.100.${i}` },
          })
        ).status;
      for (let i = 0; i < 20; i++) assert.equal(await guess(i), 401);
      assert.equal(await guess(20), 429, 'the 21st guess at the prefix, from a 21st address');
      assert.equal(
        (await fetch(`${gw.url}${ADMIN}`, { headers: { authorization: 'Bearer other-prefix-1' } })).status,
        401,
      );
    } finally {
      await gw.close();
    }
  });
});

import assert from 'node:assert/strict';
import { totpAt } from '../../src/secrets/totp.ts';
import type { TestGateway } from './gateway.ts';

/** What a browser keeps of the gateway's cookies: name, value and path (sent where the path matches). */
export class CookieJar {
  private readonly cookies = new Map<string, { value: string; path: string }>();
  take(res: Response): void {
    for (const line of res.headers.getSetCookie()) {
      const [pair = '', ...attributes] = line.split(';').map((s) => s.trim());
      const eq = pair.indexOf('=');
      const name = pair.slice(0, eq);
      const value = pair.slice(eq + 1);
      const path = attributes.find((a) => a.toLowerCase().startsWith('path='))?.slice(5) ?? '/';
      const maxAge = attributes.find((a) => a.toLowerCase().startsWith('max-age='))?.slice(8);
      if (maxAge === '0' || value === '') this.cookies.delete(name);
      else this.cookies.set(name, { value, path });
    }
  }
  header(path: string): string {
    return [...this.cookies]
      .filter(([, c]) => path === c.path || path.startsWith(c.path.endsWith('/') ? c.path : `${c.path}/`))
      .map(([name, c]) => `${name}=${c.value}`)
      .join('; ');
  }
  has(name: string): boolean {
    return this.cookies.has(name);
  }
}

/** The CSRF token of a page's forms. */
const csrfIn = (page: string) => /name="_csrf" value="([^"]+)"/.exec(page)?.[1] ?? '';

/**
 * A merchant user's browser over plain HTTP: it keeps its cookies, reads each form's CSRF token from
 * the page it came with, and posts as the page's own form would (same origin).
 */
export function userBrowser(gw: TestGateway) {
  const jar = new CookieJar();
  let lastPage = '';
  async function get(path: string) {
    const res = await fetch(`${gw.url}${path}`, { headers: { cookie: jar.header(path) }, redirect: 'manual' });
    jar.take(res);
    const text = await res.text();
    // The page whose forms are posted next: the last one read that has a form.
    if (csrfIn(text) !== '') lastPage = text;
    return { status: res.status, text, location: res.headers.get('location'), headers: res.headers };
  }
  /** Posts a form of the page last read (its CSRF token), unless `csrf` says otherwise. */
  async function post(path: string, fields: Record<string, string>, o: { csrf?: string; origin?: string } = {}) {
    const res = await fetch(`${gw.url}${path}`, {
      method: 'POST',
      redirect: 'manual',
      headers: {
        'content-type': 'application/x-www-form-urlencoded',
        cookie: jar.header(path),
        origin: o.origin ?? gw.url,
      },
      body: new URLSearchParams({ _csrf: o.csrf ?? csrfIn(lastPage), ...fields }).toString(),
    });
    jar.take(res);
    const text = await res.text();
    if (csrfIn(text) !== '') lastPage = text;
    return { status: res.status, text, location: res.headers.get('location'), headers: res.headers };
  }
  return {
    jar,
    get,
    post,
    /** Signs in at /merchant: the sign-in page, then its form; the answer to the form. */
    async signIn(email: string, password: string) {
      await get('/merchant');
      return post('/merchant/sign-in', { email, password });
    },
    /** The TOTP code step after a right password. */
    code: (code: string) => post('/merchant/code', { code }),
    /** Takes an invitation: its page, then the password twice; the answer to the form. */
    async accept(invitationUrl: string, password: string, again = password) {
      const path = new URL(invitationUrl).pathname;
      const page = await get(path);
      assert.equal(page.status, 200, page.text);
      return post(path, { password, again });
    },
    /** Turns on two-factor sign-in from the dashboard: the key it showed (base32). */
    async turnOnTwoFactor(nowMs = Date.now()) {
      await get('/merchant/two-factor');
      const started = await post('/merchant/two-factor/start', {});
      assert.equal(started.status, 303, started.text);
      const setup = await get('/merchant/two-factor');
      const key = /id="two-factor-key">([A-Z2-7 ]+)</.exec(setup.text)?.[1]?.replaceAll(' ', '');
      assert.ok(key, setup.text);
      const on = await post('/merchant/two-factor', { code: totpAt(key, nowMs) });
      assert.equal(on.status, 303, on.text);
      return key;
    },
  };
}

export type UserBrowser = ReturnType<typeof userBrowser>;

/** A merchant user invited through the admin API: the answer (with its one-time invitation link). */
export async function inviteUser(gw: TestGateway, merchantId: string, email: string, role = 'owner') {
  const r = await gw.admin('POST', `/merchants/${merchantId}/users`, { email, role });
  assert.equal(r.status, 201, JSON.stringify(r.body));
  return r.body as { id: string; email: string; role: string; status: string; invitationUrl: string };
}

/** A user invited and signed in with a password: its browser and id. */
export async function signedInUser(gw: TestGateway, merchantId: string, email: string, role = 'owner') {
  const invited = await inviteUser(gw, merchantId, email, role);
  const browser = userBrowser(gw);
  const accepted = await browser.accept(invited.invitationUrl, PASSWORD);
  assert.equal(accepted.status, 303, accepted.text);
  return { browser, id: invited.id };
}

/** A password every test user sets (long enough, not a common one). */
export const PASSWORD = 'kopi tubruk di teras jam tujuh';

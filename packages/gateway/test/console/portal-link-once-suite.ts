// A merchant portal sign-in link signs in once (docs/console.md), on both stores: the first
// Continue enters the portal, any later one, in another browser, is refused with a page that says
// the link was already used; of several Continues at once exactly one enters. Real HTTP, forms
// posted as a browser posts them (the pre-session cookie and its CSRF token).
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { startGateway, type TestGateway, type TestMerchant } from '../helpers/gateway.ts';
import type { StoreUnderTest } from '../helpers/store-under-test.ts';
import { cookieOf, csrfIn } from './console-gateway.ts';

const USED = 'This sign-in link was already used';

export function portalLinkOnceSuite(under: StoreUnderTest): void {
  describe(`a portal sign-in link signs in once (${under.name})`, () => {
    let gw: TestGateway;
    let cleanup: () => Promise<void>;
    let merchant: TestMerchant;
    before(async () => {
      const opened = await under.open();
      cleanup = opened.cleanup;
      gw = await startGateway(opened.store ? { store: opened.store } : {});
      merchant = await gw.createMerchant({ name: 'Toko Sekali' });
    });
    after(async () => {
      await gw?.close();
      await cleanup?.();
    });

    const newLink = async () => {
      const made = await gw.admin('POST', `/merchants/${merchant.id}/portal-link`);
      assert.equal(made.status, 201, JSON.stringify(made.body));
      return made.body.url as string;
    };
    const tokenOf = (link: string) => new URL(link).searchParams.get('token') as string;

    /** A browser opening the link: the page, and what its Continue needs (its own cookie and token). */
    const openLink = async (link: string) => {
      const res = await fetch(link);
      const text = await res.text();
      const pre = (res.headers.getSetCookie()[0] ?? '').split(';')[0] as string;
      return { status: res.status, text, pre, csrf: csrfIn(text) };
    };
    /** That browser pressing Continue. */
    const pressContinue = async (link: string, opened: { pre: string; csrf: string }) => {
      const res = await fetch(`${gw.url}/console/portal/enter`, {
        method: 'POST',
        redirect: 'manual',
        headers: { 'content-type': 'application/x-www-form-urlencoded', cookie: opened.pre, origin: gw.url },
        body: new URLSearchParams({ _csrf: opened.csrf, token: tokenOf(link) }).toString(),
      });
      const portal = cookieOf(res, 'snapgate_portal');
      return { status: res.status, text: await res.text(), portal };
    };
    const refusedRows = async () => {
      const r = await gw.admin('GET', `/audit?limit=200&target=${merchant.id}`);
      assert.equal(r.status, 200, JSON.stringify(r.body));
      return (r.body.items as Array<{ action: string; httpStatus: number; after: unknown }>).filter(
        (a) => a.action === 'portal: sign in (refused)',
      );
    };

    it('signs in with the first use; a second use in another browser is refused: the link was already used', async () => {
      const link = await newLink();
      // Both browsers open the link while it is unused, as a merchant and someone else holding it would.
      const first = await openLink(link);
      const second = await openLink(link);
      for (const opened of [first, second]) {
        assert.equal(opened.status, 200);
        assert.match(opened.text, /Sign in as <strong>Toko Sekali<\/strong>/);
      }
      const entered = await pressContinue(link, first);
      assert.equal(entered.status, 303);
      assert.ok(entered.portal, 'the first use gets a portal session');
      const home = await fetch(`${gw.url}/console/portal`, { headers: { cookie: entered.portal } });
      assert.equal(home.status, 200);

      const refused = await pressContinue(link, second);
      assert.equal(refused.status, 410);
      assert.equal(refused.portal, undefined, 'no session for the second use');
      assert.match(refused.text, new RegExp(`<h1>${USED}</h1>`));
      assert.match(refused.text, /A sign-in link signs in once, and this one has been used already/);
      assert.doesNotMatch(refused.text, /not valid/);

      // Opening the used link again, in a third browser, says the same, with nothing to press.
      const later = await openLink(link);
      assert.equal(later.status, 410);
      assert.match(later.text, new RegExp(USED));
      assert.doesNotMatch(later.text, /<form|Continue to the portal/);
      // The first browser's session is untouched by the refusals.
      assert.equal((await fetch(`${gw.url}/console/portal`, { headers: { cookie: entered.portal } })).status, 200);

      const rows = await refusedRows();
      assert.equal(rows.length, 1, JSON.stringify(rows));
      assert.deepEqual(
        { httpStatus: rows[0]?.httpStatus, after: rows[0]?.after },
        { httpStatus: 410, after: { refused: 'the sign-in link was already used' } },
      );
    });

    it('of eight Continues at once with one link, exactly one signs in', async () => {
      const link = await newLink();
      const browsers = await Promise.all(Array.from({ length: 8 }, () => openLink(link)));
      const answers = await Promise.all(browsers.map((b) => pressContinue(link, b)));
      assert.deepEqual(answers.map((a) => a.status).sort(), [303, 410, 410, 410, 410, 410, 410, 410]);
      assert.equal(answers.filter((a) => a.portal !== undefined).length, 1);
      for (const a of answers.filter((x) => x.status === 410)) assert.match(a.text, new RegExp(USED));
    });

    it('a link not used yet still signs in, whatever another link did', async () => {
      const used = await newLink();
      const fresh = await newLink();
      assert.equal((await pressContinue(used, await openLink(used))).status, 303);
      assert.equal((await pressContinue(fresh, await openLink(fresh))).status, 303);
    });

    it('records a use once, atomically, and forgets the uses of links long expired', async () => {
      const use = { nonce: `n-${Date.now()}`, merchantId: merchant.id, usedAt: 1_000, expiresAt: 2_000 };
      const firsts = await Promise.all(Array.from({ length: 10 }, () => gw.store.usePortalLink(use, 0)));
      assert.equal(firsts.filter(Boolean).length, 1);
      assert.equal(await gw.store.isPortalLinkUsed(use.nonce), true);
      // Expired at 2000: kept while `forgetBefore` is not past it, gone once it is.
      const other = { ...use, nonce: `${use.nonce}-b`, expiresAt: Date.now() + 60_000 };
      assert.equal(await gw.store.usePortalLink(other, 2_000), true);
      assert.equal(await gw.store.isPortalLinkUsed(use.nonce), true);
      assert.equal(await gw.store.usePortalLink({ ...other, nonce: `${use.nonce}-c` }, 2_001), true);
      assert.equal(await gw.store.isPortalLinkUsed(use.nonce), false);
      assert.equal(await gw.store.isPortalLinkUsed(other.nonce), true);
    });
  });
}

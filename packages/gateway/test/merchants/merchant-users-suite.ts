// Merchant users (docs/merchant-users.md): the operator invites a merchant's people through the admin
// API; each sets a password from the one-time link, may turn on TOTP two-factor sign-in, and signs in
// at /merchant to the merchant's dashboard with a role. Over real HTTP, as a browser posts the forms;
// throttling per account and per address, roles, CSRF, the audit log, another merchant's ids. On both
// stores. (The same in Chromium: test/console/merchant-sign-in.test.ts.)
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { createManualClock, type ManualClock } from '../../src/clock.ts';
import { totpAt } from '../../src/secrets/totp.ts';
import { rawSql } from '../books/ledger-suite.ts';
import { startGateway, type TestGateway, type TestMerchant } from '../helpers/gateway.ts';
import { inviteUser, PASSWORD, signedInUser, userBrowser } from '../helpers/merchant-user.ts';
import { authenticate, snapCall } from '../helpers/snap.ts';
import type { StoreUnderTest } from '../helpers/store-under-test.ts';

let emails = 0;
const email = (name = 'user') => `${name}.${Date.now()}.${++emails}@toko.example`;
/** Where a dashboard page sends a browser that is not signed in: the sign-in form, saying so. */
const SIGNED_OUT = '/merchant?ended=1';

export function merchantUsersSuite(under: StoreUnderTest): void {
  describe(`merchant users (${under.name})`, () => {
    let gw: TestGateway;
    let cleanup: () => Promise<void>;
    let clock: ManualClock;
    let m: TestMerchant;
    let other: TestMerchant;
    let othersRef: string;
    before(async () => {
      const opened = await under.open();
      cleanup = opened.cleanup;
      clock = createManualClock(Date.now());
      gw = await startGateway({ store: opened.store, clock, env: { SNAPGATE_RATE_LIMIT: 'off' } });
      m = await gw.createMerchant({ name: 'Toko Sinar', callbackBaseUrl: 'https://toko.example/hooks' });
      other = await gw.createMerchant({ name: 'Toko Lain' });
      // A paid payment of the other merchant, whose ids a user of this one tries.
      const qr = await snapCall(gw.url, await authenticate(gw.url, other), '/api/snap/v1.0/qr/qr-mpm-generate', {
        partnerReferenceNo: `LAIN-${Date.now()}`,
        amount: { value: '12000.00', currency: 'IDR' },
      });
      assert.equal(qr.status, 200, qr.text);
      othersRef = qr.body.referenceNo;
      assert.equal((await gw.admin('POST', `/sandbox/qris/${othersRef}/pay`, { status: '00' })).status, 200);
    });
    after(async () => {
      await gw.close();
      await cleanup();
    });

    it('invites a user with a one-time link, lists, changes a role, invites again and disables', async () => {
      const address = email('siti');
      const invited = await inviteUser(gw, m.id, address.toUpperCase(), 'finance');
      assert.equal(invited.email, address, 'kept lower case');
      assert.equal(invited.role, 'finance');
      assert.equal(invited.status, 'invited');
      assert.match(invited.invitationUrl, new RegExp(`^${gw.url}/merchant/invitation/[\\w-]{43}$`));
      const listed = await gw.admin('GET', `/merchants/${m.id}/users`);
      assert.equal(listed.status, 200);
      const one = listed.body.items.find((u: { id: string }) => u.id === invited.id);
      assert.deepEqual(Object.keys(one).sort(), [
        'createdAt',
        'email',
        'id',
        'lastSignInAt',
        'merchantId',
        'role',
        'status',
        'twoFactor',
      ]);
      // Another merchant's path names no user of this one.
      assert.equal((await gw.admin('GET', `/merchants/${other.id}/users/${invited.id}`)).status, 404);
      const viewer = await gw.admin('PATCH', `/merchants/${m.id}/users/${invited.id}`, { role: 'viewer' });
      assert.equal(viewer.body.role, 'viewer');
      // A new link: the first one stops working.
      const again = await gw.admin('POST', `/merchants/${m.id}/users/${invited.id}/invitation`);
      assert.equal(again.status, 201, JSON.stringify(again.body));
      assert.notEqual(again.body.invitationUrl, invited.invitationUrl);
      assert.equal((await fetch(invited.invitationUrl)).status, 404);
      assert.equal((await fetch(again.body.invitationUrl)).status, 200);
      // The audit log keeps that a link was made, never the link.
      const audit = await gw.admin('GET', `/audit?target=${invited.id}`);
      const made = JSON.stringify(audit.body);
      assert.equal(
        made.includes(again.body.invitationUrl.split('/').pop()),
        false,
        'no invitation link in the audit log',
      );
      const disabled = await gw.admin('POST', `/merchants/${m.id}/users/${invited.id}/disable`);
      assert.equal(disabled.body.status, 'disabled');
      assert.equal((await gw.admin('POST', `/merchants/${m.id}/users/${invited.id}/disable`)).status, 409);
      assert.equal((await fetch(again.body.invitationUrl)).status, 404, 'a disabled user’s link works no more');
    });

    it('refuses an invitation with a bad email or role, a taken email, an unknown merchant', async () => {
      const taken = email('taken');
      await inviteUser(gw, m.id, taken);
      const cases: Array<[string, unknown, number, RegExp]> = [
        [m.id, { email: 'not-an-email', role: 'owner' }, 400, /email: an email address/],
        [m.id, { email: 'a@b', role: 'owner' }, 400, /email: an email address/],
        [m.id, { email: email(), role: 'boss' }, 400, /role/],
        [m.id, { email: email() }, 400, /role/],
        [m.id, { email: email(), role: 'owner', password: 'x' }, 400, /password/],
        [m.id, { email: taken, role: 'viewer' }, 409, /is a user already/],
        [other.id, { email: taken.toUpperCase(), role: 'viewer' }, 409, /is a user already/],
        ['m_nope', { email: email(), role: 'owner' }, 404, /merchant m_nope not found/],
      ];
      for (const [merchantId, body, status, why] of cases) {
        const r = await gw.admin('POST', `/merchants/${merchantId}/users`, body);
        assert.equal(r.status, status, JSON.stringify([body, r.body]));
        assert.match(JSON.stringify(r.body), why);
      }
      assert.equal((await gw.admin('PATCH', `/merchants/${m.id}/users/mu_nope`, { role: 'owner' })).status, 404);
    });

    it('sets a password from the invitation: not twice, not a common one, not two different ones', async () => {
      const invited = await inviteUser(gw, m.id, email('budi'), 'developer');
      const browser = userBrowser(gw);
      const page = await browser.get(new URL(invited.invitationUrl).pathname);
      assert.equal(page.status, 200);
      assert.equal(page.headers.get('cache-control'), 'no-store');
      assert.match(page.text, /Welcome to Toko Sinar/);
      const refusals: Array<[string, string, RegExp]> = [
        ['short one', 'short one', /at least 12 characters/],
        ['password1234', 'password1234', /too common/],
        ['kopi tubruk di teras', 'kopi tubruk di terus', /not the same/],
      ];
      for (const [password, again, why] of refusals) {
        const r = await browser.accept(invited.invitationUrl, password, again);
        assert.equal(r.status, 400, password);
        assert.match(r.text, why);
      }
      const accepted = await browser.accept(invited.invitationUrl, PASSWORD);
      assert.equal(accepted.status, 303);
      assert.equal(accepted.location, '/merchant/two-factor', 'offered two-factor sign-in first');
      const dashboard = await browser.get('/merchant/transactions');
      assert.equal(dashboard.status, 200);
      assert.match(dashboard.text, new RegExp(invited.email.replace(/[.]/g, '\\.')));
      assert.match(dashboard.text, /merchant dashboard/);
      // Used: the link works no more.
      assert.equal((await fetch(invited.invitationUrl)).status, 404);
      const stored = (await gw.admin('GET', `/merchants/${m.id}/users/${invited.id}`)).body;
      assert.equal(stored.status, 'active');
      // Only a scrypt record is kept; the audit log holds no part of the link.
      const [row] = await rawSql(gw, `SELECT password_hash FROM merchant_users WHERE id = '${invited.id}'`);
      assert.match(String(row?.password_hash), /^scrypt\$15\$8\$3\$/);
      const audit = JSON.stringify((await gw.admin('GET', `/audit?target=${invited.id}`)).body);
      assert.match(audit, /merchant user: set password \(invitation\)/);
      assert.equal(audit.includes(invited.invitationUrl.split('/').pop() as string), false, audit);
    });

    it('signs in with the password, never says which of the two is wrong, and signs out everywhere', async () => {
      const { browser } = await signedInUser(gw, m.id, email('rina'), 'viewer');
      const second = userBrowser(gw);
      const users = (await gw.admin('GET', `/merchants/${m.id}/users`)).body.items as Array<{ email: string }>;
      const rina = users.find((u) => u.email.startsWith('rina.'))?.email as string;
      const wrong = await second.signIn(rina, 'not the password at all');
      assert.equal(wrong.status, 401);
      assert.match(wrong.text, /The email or the password is not right/);
      const nobody = await second.signIn(`nobody.${rina}`, PASSWORD);
      assert.equal(nobody.status, 401);
      assert.match(nobody.text, /The email or the password is not right/);
      const right = await second.signIn(rina.toUpperCase(), PASSWORD);
      assert.equal(right.status, 303);
      assert.equal(right.location, '/merchant/transactions');
      assert.equal((await second.get('/merchant/transactions')).status, 200);
      // Signing out in one browser ends the session in both.
      const out = await second.post('/merchant/logout', {});
      assert.equal(out.status, 303);
      assert.equal(out.location, '/merchant/signed-out');
      assert.equal((await browser.get('/merchant/transactions')).location, SIGNED_OUT);
      assert.equal((await second.get('/merchant/transactions')).location, SIGNED_OUT);
    });

    it('locks an account after 10 wrong passwords for 15 minutes, the right one included, and no other', async () => {
      const target = email('lock');
      await signedInUser(gw, m.id, target);
      const neighbour = email('neighbour');
      await signedInUser(gw, m.id, neighbour);
      const browser = userBrowser(gw);
      for (let i = 0; i < 10; i++) assert.equal((await browser.signIn(target, `wrong guess number ${i}`)).status, 401);
      const right = await browser.signIn(target, PASSWORD);
      assert.equal(right.status, 429, 'the right password too');
      assert.match(right.text, /locked until/);
      assert.ok(Number(right.headers.get('retry-after')) > 0);
      // An email of no account locks alike: the answer says nothing of whether it is a user's.
      const nobody = `nobody.${target}`;
      for (let i = 0; i < 10; i++) assert.equal((await browser.signIn(nobody, `wrong guess number ${i}`)).status, 401);
      const locked = await browser.signIn(nobody, PASSWORD);
      assert.equal(locked.status, 429);
      assert.match(locked.text, /locked until/);
      // Another account from the same address still signs in.
      assert.equal((await userBrowser(gw).signIn(neighbour, PASSWORD)).status, 303);
      clock.advance(15 * 60_000 + 1);
      assert.equal((await browser.signIn(target, PASSWORD)).status, 303);
    });

    it('tries no more than 10 passwords of an account in a window, however many come at once', async () => {
      const target = email('burst');
      await signedInUser(gw, m.id, target);
      clock.advance(61_000);
      const burst = await Promise.all(
        Array.from({ length: 20 }, (_, i) => userBrowser(gw).signIn(target, `burst guess ${i}`)),
      );
      const statuses = burst.map((r) => r.status).sort();
      assert.deepEqual(statuses, [...Array(10).fill(401), ...Array(10).fill(429)]);
      assert.equal((await userBrowser(gw).signIn(target, PASSWORD)).status, 429);
      clock.advance(15 * 60_000 + 1);
    });

    it('turns on two-factor sign-in with a code, then asks for one at each sign-in, taking each once', async () => {
      const address = email('dewi');
      const { browser } = await signedInUser(gw, m.id, address, 'developer');
      // A wrong first code turns nothing on.
      await browser.get('/merchant/two-factor');
      await browser.post('/merchant/two-factor/start', {});
      await browser.get('/merchant/two-factor');
      const refused = await browser.post('/merchant/two-factor', { code: '000000' });
      assert.equal(refused.status, 400);
      assert.match(refused.text, /That code is not right/);
      const key = await browser.turnOnTwoFactor(clock.now());
      assert.match(key, /^[A-Z2-7]{32}$/);
      const [row] = await rawSql(gw, `SELECT totp_secret FROM merchant_users WHERE email = '${address}'`);
      assert.match(String(row?.totp_secret), /^sg1\./, 'sealed at rest');
      assert.equal(String(row?.totp_secret).includes(key), false);

      const next = userBrowser(gw);
      const asked = await next.signIn(address, PASSWORD);
      assert.equal(asked.status, 200);
      assert.match(asked.text, /6-digit code/);
      assert.equal((await next.get('/merchant/transactions')).location, SIGNED_OUT, 'not signed in before the code');
      const wrong = await next.code('123456');
      assert.equal(wrong.status, 401);
      assert.match(wrong.text, /That code is not right/);
      clock.advance(30_000);
      const code = totpAt(key, clock.now());
      const signed = await next.code(code);
      assert.equal(signed.status, 303, signed.text);
      assert.equal((await next.get('/merchant/transactions')).status, 200);
      // The same code again, in another browser: taken once.
      const replay = userBrowser(gw);
      await replay.signIn(address, PASSWORD);
      assert.equal((await replay.code(code)).status, 401);
      // The code step lasts 5 minutes from the password, however many wrong codes come between.
      const slow = userBrowser(gw);
      await slow.signIn(address, PASSWORD);
      clock.advance(4 * 60_000);
      assert.equal((await slow.code('111111')).status, 401);
      clock.advance(2 * 60_000);
      const late = await slow.code(totpAt(key, clock.now()));
      assert.equal(late.status, 401);
      assert.match(late.text, /took too long/);
      // A lost phone: the operator turns it off; the password alone signs in, and every session ended.
      const users = (await gw.admin('GET', `/merchants/${m.id}/users`)).body.items as Array<{
        id: string;
        email: string;
      }>;
      const dewi = users.find((u) => u.email === address)?.id as string;
      const reset = await gw.admin('POST', `/merchants/${m.id}/users/${dewi}/reset-two-factor`);
      assert.equal(reset.status, 200, JSON.stringify(reset.body));
      assert.equal(reset.body.twoFactor, false);
      assert.equal((await next.get('/merchant/transactions')).location, SIGNED_OUT, 'its sessions ended');
      assert.equal((await userBrowser(gw).signIn(address, PASSWORD)).status, 303);
    });

    it('lets each role change only what it may, and every form needs its CSRF token', async () => {
      const viewer = await signedInUser(gw, m.id, email('viewer'), 'viewer');
      const finance = await signedInUser(gw, m.id, email('finance'), 'finance');
      const developer = await signedInUser(gw, m.id, email('developer'), 'developer');
      const owner = await signedInUser(gw, m.id, email('owner'), 'owner');
      const settings = { callbackBaseUrl: 'https://toko.example/new-hooks', callbackFormat: 'snap' };
      for (const [who, browser, status] of [
        ['viewer', viewer.browser, 403],
        ['finance', finance.browser, 403],
        ['developer', developer.browser, 303],
        ['owner', owner.browser, 303],
      ] as const) {
        await browser.get('/merchant/settings');
        const r = await browser.post('/merchant/settings', settings);
        assert.equal(r.status, status, `${who}: ${r.text.slice(0, 300)}`);
        if (status === 403) assert.match(r.text, new RegExp(`your role \\(${who}\\) may not do this`));
      }
      // Reading is every role's.
      assert.equal((await viewer.browser.get('/merchant/settings')).status, 200);
      // Without the CSRF token, or from another site: refused.
      assert.equal((await owner.browser.post('/merchant/settings', settings, { csrf: 'forged' })).status, 403);
      await owner.browser.get('/merchant/settings');
      assert.equal(
        (await owner.browser.post('/merchant/settings', settings, { origin: 'https://evil.example' })).status,
        403,
      );
      await viewer.browser.get('/merchant');
      assert.equal(
        (await viewer.browser.post('/merchant/sign-in', { email: 'a@b.c', password: 'x' }, { csrf: 'x' })).status,
        403,
      );
      // The audit log names the user who did it.
      const audit = await gw.admin('GET', `/audit?target=${m.id}`);
      const names = (audit.body.items as Array<{ keyName: string; action: string }>).map(
        (e) => `${e.keyName} ${e.action}`,
      );
      assert.ok(
        names.some((n) => /merchant user developer\.[^ ]+ \(developer\)/.test(n)),
        JSON.stringify(names.slice(0, 10)),
      );
    });

    it('never shows a user another merchant’s records', async () => {
      const { browser } = await signedInUser(gw, m.id, email('nosy'), 'owner');
      // The operator sees it; the user of another merchant sees nothing of it.
      assert.equal((await gw.admin('GET', `/transactions/${othersRef}`)).status, 200);
      const notifications = (await gw.admin('GET', `/notifications?referenceNo=${othersRef}`)).body.items ?? [];
      const paths = [
        `/merchant/transactions/${othersRef}`,
        `/merchant/transactions?ref=${othersRef}`,
        ...notifications.map((n: { id: number }) => `/merchant/notifications/${n.id}`),
      ];
      for (const path of paths) {
        const r = await browser.get(path);
        assert.ok([200, 404].includes(r.status), `${path}: ${r.status}`);
        assert.equal(r.text.includes(`/transactions/${othersRef}"`), false, path);
        assert.equal(r.text.includes('Toko Lain'), false, path);
      }
      await browser.get('/merchant/transactions');
      const replay = await browser.post(`/merchant/notifications/${notifications[0]?.id ?? 1}/replay`, {});
      assert.equal(replay.status, 404);
    });

    it('refuses sign-ins from an address past 50 failures a minute, whichever account', async () => {
      const fine = email('fine');
      await signedInUser(gw, m.id, fine);
      // A window of its own: the failures of the tests before are a minute old.
      clock.advance(61_000);
      const browser = userBrowser(gw);
      // 50 wrong sign-ins, ten at a time (each costs a password hash), each from its own sign-in page.
      const statuses: number[] = [];
      for (let batch = 0; batch < 5; batch++) {
        const tries = Array.from({ length: 10 }, (_, i) =>
          userBrowser(gw).signIn(`guess${batch}-${i}@nowhere.example`, 'any password at all'),
        );
        statuses.push(...(await Promise.all(tries)).map((r) => r.status));
      }
      assert.deepEqual(new Set(statuses), new Set([401]), 'the first 50 are answered as wrong');
      const r = await browser.signIn(fine, PASSWORD);
      assert.equal(r.status, 429, 'the 51st try from that address waits, the right password included');
      clock.advance(61_000);
      assert.equal((await browser.signIn(fine, PASSWORD)).status, 303);
    });
  });

  describe(`merchant users, two-factor sign-in required (${under.name})`, () => {
    it('sends a user without it to turn it on before any other page', async () => {
      const opened = await under.open();
      const gw = await startGateway({ store: opened.store, env: { SNAPGATE_MERCHANT_2FA: 'required' } });
      try {
        const m = await gw.createMerchant({ name: 'Toko Aman' });
        const { browser } = await signedInUser(gw, m.id, email('aman'));
        for (const path of ['/merchant/transactions', '/merchant/settings']) {
          const r = await browser.get(path);
          assert.equal(r.status, 303, path);
          assert.equal(r.location, '/merchant/two-factor');
        }
        const page = await browser.get('/merchant/two-factor');
        assert.match(page.text, /requires two-factor sign-in/);
        await browser.turnOnTwoFactor();
        assert.equal((await browser.get('/merchant/transactions')).status, 200);
      } finally {
        await gw.close();
        await opened.cleanup();
      }
    });
  });
}

// A refused console or portal form answers with a redirect (Post/Redirect/Get) to the page that says
// why, yet its audit row says it was refused, with the status the refusal stands for: 400 for what
// was typed, 409 for the state of what it is about. Read back through the admin API's audit log.
// No browser: the forms are posted as a browser on the console posts them.
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { startGateway, type TestGateway, type TestMerchant } from '../helpers/gateway.ts';
import { authenticate, snapCall } from '../helpers/snap.ts';
import { cookieOf, csrfIn, getPage, noticeAfter, postForm, signInByHand } from './console-gateway.ts';

interface AuditRow {
  action: string;
  path: string;
  target: string | null;
  httpStatus: number;
  request: Record<string, unknown> | null;
  after: { refused?: string } | null;
}

describe('a refused form is audited as refused, with its 4xx status', () => {
  let gw: TestGateway;
  let merchant: TestMerchant;
  let session: string;

  before(async () => {
    gw = await startGateway();
    merchant = await gw.createMerchant({ name: 'Toko Tolak' });
    session = await signInByHand(gw.url);
  });
  after(async () => {
    await gw?.close();
  });

  /** The audit rows of an action, newest first, through the admin API. */
  const rowsOf = async (action: string, target?: string): Promise<AuditRow[]> => {
    const r = await gw.admin('GET', `/audit?limit=200${target ? `&target=${encodeURIComponent(target)}` : ''}`);
    assert.equal(r.status, 200, JSON.stringify(r.body));
    return (r.body.items as AuditRow[]).filter((a) => a.action === action);
  };
  /** The one row of a refused action, and the notice its page shows. */
  const refusedRow = async (action: string, target?: string) => {
    const rows = await rowsOf(`${action} (refused)`, target);
    assert.equal(rows.length, 1, `one row of ${action} (refused): ${JSON.stringify(rows)}`);
    return rows[0] as AuditRow;
  };
  /** The page a refusal redirected to, opened with the notice it left: what it says. */
  const refusalAfter = async (res: Response) => (await noticeAfter(gw.url, session, res)).text;

  it('a rotate-secret with a bad overlap: 400, refused, the secret unchanged', async () => {
    const version = (await gw.store.findMerchantById(merchant.id))?.secretVersion;
    const res = await postForm(gw.url, session, `/console/merchants/${merchant.id}/rotate-secret`, {
      overlapSec: '-1',
    });
    assert.equal(res.status, 303);
    assert.equal(res.headers.get('location'), `/console/merchants/${merchant.id}`);
    assert.match((await refusalAfter(res)) ?? '', /The secret was not rotated/);
    const row = await refusedRow('console: rotate merchant secret', merchant.id);
    assert.equal(row.httpStatus, 400);
    assert.equal(row.path, `/console/merchants/${merchant.id}/rotate-secret`);
    assert.equal(row.target, merchant.id);
    assert.deepEqual(row.request, { overlapSec: '-1' });
    assert.match(row.after?.refused ?? '', /^The secret was not rotated: the overlap is a whole number/);
    assert.equal((await gw.store.findMerchantById(merchant.id))?.secretVersion, version);
    assert.deepEqual(await rowsOf('console: rotate merchant secret'), [], 'no row says it was rotated');
  });

  it('sandbox actions: a stale Fail on a paid QRIS 409, a malformed or missing VA amount 400', async () => {
    const caller = await authenticate(gw.url, merchant);
    const g = await snapCall(gw.url, caller, '/api/snap/v1.0/qr/qr-mpm-generate', {
      partnerReferenceNo: 'TOLAK-1',
      amount: { value: '12000.00', currency: 'IDR' },
    });
    assert.equal(g.status, 200, g.text);
    const ref = g.body.referenceNo as string;
    assert.equal((await gw.admin('POST', `/sandbox/qris/${ref}/pay`, { status: '00' })).status, 200);
    const fail = await postForm(gw.url, session, `/console/sandbox/qris/${ref}`, { status: '06' });
    assert.equal(fail.status, 303);
    assert.equal(await refusalAfter(fail), `QRIS ${ref} is already paid: nothing was changed.`);
    const failed = await refusedRow('console: sandbox qris fail', ref);
    assert.equal(failed.httpStatus, 409);
    assert.equal(failed.after?.refused, `QRIS ${ref} is already paid: nothing was changed.`);
    assert.equal((await gw.admin('GET', `/transactions/${ref}`)).body.status, '00');

    const vaOf = async (trxId: string, more: Record<string, unknown>) => {
      const v = await snapCall(gw.url, caller, '/api/snap/v1.0/transfer-va/create-va', {
        virtualAccountName: 'Budi',
        trxId,
        ...more,
      });
      assert.equal(v.status, 200, v.text);
      const vaNo = v.body.virtualAccountData.virtualAccountNo as string;
      return (await gw.store.findTransactionByVirtualAccountNo(vaNo))?.referenceNo as string;
    };
    const closed = await vaOf('TOLAK-VA-1', { totalAmount: { value: '25000.00', currency: 'IDR' } });
    const typo = await postForm(gw.url, session, `/console/sandbox/va/${closed}`, { amount: '25.000,00' });
    assert.equal(typo.status, 303);
    assert.match((await refusalAfter(typo)) ?? '', /is not a money value like 10000\.00/);
    assert.equal((await refusedRow('console: sandbox va pay', closed)).httpStatus, 400);

    const open = await vaOf('TOLAK-VA-2', { virtualAccountTrxType: 'O' });
    for (const amount of ['', '0.00']) {
      const res = await postForm(gw.url, session, `/console/sandbox/va/${open}`, { amount });
      assert.equal(res.status, 303);
      assert.equal(await refusalAfter(res), 'Nothing was paid: this VA takes any amount: type one above 0.00.');
    }
    const rows = await rowsOf('console: sandbox va pay (refused)', open);
    assert.deepEqual(
      rows.map((r) => r.httpStatus),
      [400, 400],
    );
    for (const ref of [closed, open]) assert.equal((await gw.admin('GET', `/transactions/${ref}`)).body.status, '01');
  });

  it('a portal link for a disabled merchant 409; a recover without a time 400', async () => {
    const disabled = await gw.createMerchant({ name: 'Toko Tutup' });
    assert.equal((await gw.admin('PATCH', `/merchants/${disabled.id}`, { status: 'disabled' })).status, 200);
    const link = await postForm(gw.url, session, `/console/merchants/${disabled.id}/portal-link`, {});
    assert.equal(link.status, 303);
    assert.match((await refusalAfter(link)) ?? '', /No portal link was made: the merchant is disabled/);
    assert.equal((await refusedRow('console: create portal link', disabled.id)).httpStatus, 409);

    const recover = await postForm(gw.url, session, `/console/merchants/${merchant.id}/recover`, { since: '' });
    assert.equal(recover.status, 303);
    assert.equal((await refusedRow('console: recover dead notifications', merchant.id)).httpStatus, 400);
  });

  it('the portal: a test callback with nothing to send 409; a missing page keeps the menu', async () => {
    const quiet = await gw.createMerchant({ name: 'Toko Sepi' });
    const made = await gw.admin('POST', `/merchants/${quiet.id}/portal-link`);
    assert.equal(made.status, 201, JSON.stringify(made.body));
    const enter = await fetch(made.body.url);
    const pre = (enter.headers.getSetCookie()[0] ?? '').split(';')[0] as string;
    const token = new URL(made.body.url).searchParams.get('token') as string;
    const signedIn = await fetch(`${gw.url}/console/portal/enter`, {
      method: 'POST',
      redirect: 'manual',
      headers: { 'content-type': 'application/x-www-form-urlencoded', cookie: pre, origin: gw.url },
      body: new URLSearchParams({ _csrf: csrfIn(await enter.text()), token }).toString(),
    });
    assert.equal(signedIn.status, 303);
    const portal = cookieOf(signedIn, 'snapgate_portal') as string;
    const csrf = csrfIn((await getPage(gw.url, portal, '/console/portal/settings')).text);
    const res = await fetch(`${gw.url}/console/portal/test-callback`, {
      method: 'POST',
      redirect: 'manual',
      headers: { 'content-type': 'application/x-www-form-urlencoded', cookie: portal, origin: gw.url },
      body: new URLSearchParams({ _csrf: csrf }).toString(),
    });
    assert.equal(res.status, 303);
    assert.equal(res.headers.get('location'), '/console/portal/settings');
    const row = await refusedRow('portal: test callback');
    assert.equal(row.httpStatus, 409);
    assert.match(row.after?.refused ?? '', /^No test callback was sent: there is no notification to send yet/);

    // A page that does not exist keeps the portal's menu while the merchant is signed in.
    const missing = await getPage(gw.url, portal, '/console/portal/no-such-page');
    assert.equal(missing.status, 404);
    assert.match(missing.text, /<nav aria-label="Main">[\s\S]*Callback settings/);
    assert.match(missing.text, /Toko Sepi/);
  });

  it('a form refused with an error page says so too: its route, (refused), its status', async () => {
    const res = await postForm(gw.url, session, `/console/merchants/${merchant.id}/status`, { status: 'gone' });
    assert.equal(res.status, 400);
    const row = await refusedRow('console: POST /console/merchants/:id/status');
    assert.equal(row.httpStatus, 400);
  });

  it('a bank reference refused: the payout form again (400), as typed, with why; nothing paid', async () => {
    const caller = await authenticate(gw.url, merchant);
    const g = await snapCall(gw.url, caller, '/api/snap/v1.0/qr/qr-mpm-generate', {
      partnerReferenceNo: 'REFUSE-PAYOUT-1',
      amount: { value: '5000.00', currency: 'IDR' },
    });
    assert.equal(g.status, 200, g.text);
    assert.equal((await gw.admin('POST', `/sandbox/qris/${g.body.referenceNo}/pay`, {})).status, 200);
    const settled = await gw.admin('POST', '/settlements', { merchantId: merchant.id });
    assert.equal(settled.status, 201, JSON.stringify(settled.body));
    const id = settled.body.items[0].id as string;
    const res = await postForm(gw.url, session, `/console/books/settlements/${id}/payout`, {
      bankReference: 'TRF 2026 bad',
    });
    assert.equal(res.status, 400);
    const page = await res.text();
    assert.match(page, /<input name="bankReference"[^>]* value="TRF 2026 bad" aria-invalid="true">/);
    assert.match(page, /Not paid out:[\s\S]*bankReference: letters, digits and \. \/ : - _ only\./);
    assert.equal((await refusedRow('console: pay out settlement', id)).httpStatus, 400);
    assert.equal((await gw.admin('GET', `/settlements/${id}`)).body.status, 'open');

    // From a tab left open while it was paid out: no form any more, the problems said all the same.
    const paid = await gw.admin('POST', `/settlements/${id}/payout`, { bankReference: 'TRF-PAID-1' });
    assert.equal(paid.status, 200, JSON.stringify(paid.body));
    const stale = await postForm(gw.url, session, `/console/books/settlements/${id}/payout`, {
      bankReference: 'TRF bad again',
    });
    assert.equal(stale.status, 400);
    const again = await stale.text();
    assert.doesNotMatch(again, /<input name="bankReference"/);
    assert.match(again, /Not paid out:[\s\S]*bankReference: letters, digits and \. \/ : - _ only\./);
  });
});

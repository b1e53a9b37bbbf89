// docs/console.md, books: a reconciliation run's page shows its problems a page at a time (50),
// with Previous and Next links, however many the run found (a run of 100,000 lines was 48 MiB of
// HTML); an Apply made on a later page comes back to that page. Real HTTP to a real gateway, as a
// signed-in browser sends it (no browser needed).
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { formatJakartaTimestamp } from '@snapgate/snap';
import { ADMIN_TOKEN, startGateway, type TestGateway } from '../helpers/gateway.ts';
import { authenticate, snapCall } from '../helpers/snap.ts';
import { getPage, postForm, signInByHand } from './console-gateway.ts';

const LINES = 120;
const OPEN_LINE = 110;

/** The report lines a page shows, in order. */
const linesOn = (html: string) => [...html.matchAll(/<tr id="line-(\d+)"/g)].map((m) => Number(m[1]));
/** Where a pager link goes, or undefined when the page has none. */
const linkOf = (html: string, id: string) =>
  new RegExp(`<a href="([^"]+)" id="${id}"`).exec(html)?.[1]?.replaceAll('&amp;', '&');

describe('the console’s page of a reconciliation run, a page of problems at a time', () => {
  let gw: TestGateway;
  let session: string;
  let runId: string;
  let open: string;
  before(async () => {
    gw = await startGateway();
    session = await signInByHand(gw.url);
    const acquirerId = (await gw.store.getSetting('sandbox_acquirer_provider_id')) as string;
    const caller = await authenticate(gw.url, await gw.createMerchant({}));
    const g = await snapCall(gw.url, caller, '/api/snap/v1.0/qr/qr-mpm-generate', {
      partnerReferenceNo: 'CONSOLE-PAGES-1',
      amount: { value: '7000.00', currency: 'IDR' },
    });
    assert.equal(g.status, 200, g.text);
    open = g.body.referenceNo as string;
    const at = formatJakartaTimestamp(Date.now());
    const lines = Array.from({ length: LINES }, (_, i) =>
      i + 1 === OPEN_LINE ? `${open},,7000.00,${at},00` : `CONSOLE-UNKNOWN-${i + 1},,1000.00,${at},00`,
    );
    const res = await fetch(`${gw.url}/admin/v1/providers/${acquirerId}/reconciliations`, {
      method: 'POST',
      headers: { authorization: `Bearer ${ADMIN_TOKEN}`, 'content-type': 'text/csv' },
      body: ['referenceNo,providerReference,amount,paidAt,status', ...lines].join('\n'),
    });
    assert.equal(res.status, 201);
    runId = (await res.json()).id;
  });
  after(() => gw.close());

  const range = (from: number, to: number) => Array.from({ length: to - from + 1 }, (_, i) => from + i);

  it('shows 50 problems a page, with Next and Previous links through all of them', async () => {
    const first = await getPage(gw.url, session, `/console/books/reconciliations/${runId}`);
    assert.equal(first.status, 200);
    assert.match(first.text, /<dt>Problems<\/dt><dd>120<\/dd>/);
    assert.deepEqual(linesOn(first.text), range(1, 50));
    assert.equal(linkOf(first.text, 'problems-prev'), undefined, 'the first page has no Previous');
    const second = await getPage(gw.url, session, linkOf(first.text, 'problems-next') as string);
    assert.deepEqual(linesOn(second.text), range(51, 100));
    const third = await getPage(gw.url, session, linkOf(second.text, 'problems-next') as string);
    assert.deepEqual(linesOn(third.text), range(101, 120));
    assert.equal(linkOf(third.text, 'problems-next'), undefined, 'the last page has no Next');
    const back = await getPage(gw.url, session, linkOf(third.text, 'problems-prev') as string);
    assert.deepEqual(linesOn(back.text), range(51, 100));
    const start = linkOf(back.text, 'problems-prev') as string;
    assert.equal(start, `/console/books/reconciliations/${runId}#h-problems`, 'back to the first page, no cursor');
  });

  it('offers Apply only for a transaction the gateway knows', async () => {
    const first = await getPage(gw.url, session, `/console/books/reconciliations/${runId}`);
    const second = await getPage(gw.url, session, linkOf(first.text, 'problems-next') as string);
    const last = await getPage(gw.url, session, linkOf(second.text, 'problems-next') as string);
    const rowOf = (line: number) => new RegExp(`<tr id="line-${line}"[^]*?</tr>`).exec(last.text)?.[0] ?? '';
    assert.match(rowOf(OPEN_LINE), new RegExp(`/problems/${OPEN_LINE}/apply`));
    for (const unknown of [101, 120]) {
      assert.doesNotMatch(rowOf(unknown), /\/apply"/, `line ${unknown}: CONSOLE-UNKNOWN-${unknown}`);
      assert.match(rowOf(unknown), /unknown to the gateway: nothing to apply/);
    }
  });

  it('applies a problem of the last page and comes back to that page', async () => {
    const first = await getPage(gw.url, session, `/console/books/reconciliations/${runId}`);
    const second = await getPage(gw.url, session, linkOf(first.text, 'problems-next') as string);
    const lastHref = linkOf(second.text, 'problems-next') as string;
    const last = await getPage(gw.url, session, lastHref);
    const cursor = new URL(lastHref, gw.url).searchParams.get('cursor') as string;
    assert.match(last.text, new RegExp(`<input type="hidden" name="cursor" value="${cursor}">`));
    const applied = await postForm(
      gw.url,
      session,
      `/console/books/reconciliations/${runId}/problems/${OPEN_LINE}/apply`,
      {
        cursor,
      },
    );
    assert.equal(applied.status, 303);
    const to = applied.headers.get('location') as string;
    assert.equal(new URL(to, gw.url).searchParams.get('cursor'), cursor);
    assert.match(to, new RegExp(`ok=applied#line-${OPEN_LINE}$`));
    const shown = await getPage(gw.url, session, to);
    assert.deepEqual(linesOn(shown.text), range(101, 120));
    const row = new RegExp(`<tr id="line-${OPEN_LINE}"[^]*?</tr>`).exec(shown.text)?.[0] ?? '';
    assert.match(row, /<span class="badge applied">applied<\/span>/);
    assert.equal((await gw.store.findTransaction(open))?.status, '00');
  });

  it('refuses a cursor the gateway did not issue with 400', async () => {
    const page = await getPage(gw.url, session, `/console/books/reconciliations/${runId}?cursor=not-a-cursor`);
    assert.equal(page.status, 400);
    assert.match(page.text, /not a cursor this gateway issued/);
  });
});

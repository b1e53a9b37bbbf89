// docs/books.md#runs: a run's problems are read a page at a time. The upload and the run answer the
// first 100 with `problemCount` and `nextCursor`; GET /admin/v1/reconciliations/:id/problems pages
// through the rest in the run's order (keyset, by their place in the run); the run list carries no
// problems. A problem on a later page is applied by its line all the same. Real HTTP, both stores.
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { formatJakartaTimestamp } from '@snapgate/snap';
import { ADMIN_TOKEN, startGateway, type TestGateway } from '../helpers/gateway.ts';
import { authenticate, type SnapCaller, snapCall } from '../helpers/snap.ts';
import type { StoreUnderTest } from '../helpers/store-under-test.ts';

const HEADER = 'referenceNo,providerReference,amount,paidAt,status';
/** Lines in the report: unknown references, but for the one QRIS the gateway still has open. */
const LINES = 250;
const OPEN_LINE = 230;

interface Problem {
  line: number | null;
  type: string;
  referenceNo?: string;
  resolvedAt?: string;
}

export function reconciliationPagingSuite(under: StoreUnderTest): void {
  describe(`a run’s problems, a page at a time (${under.name})`, () => {
    let gw: TestGateway;
    let cleanup: () => Promise<void>;
    let acquirerId: string;
    let caller: SnapCaller;
    before(async () => {
      const opened = await under.open();
      cleanup = opened.cleanup;
      gw = await startGateway(opened.store ? { store: opened.store } : {});
      acquirerId = (await gw.store.getSetting('sandbox_acquirer_provider_id')) as string;
      caller = await authenticate(gw.url, await gw.createMerchant({}));
    });
    after(async () => {
      await gw.close();
      await cleanup();
    });

    const problemsOf = (id: string, query: string) => gw.admin('GET', `/reconciliations/${id}/problems?${query}`);

    it('answers the first 100 problems with problemCount and nextCursor, pages through the rest in order, and applies a problem of a later page', async () => {
      const g = await snapCall(gw.url, caller, '/api/snap/v1.0/qr/qr-mpm-generate', {
        partnerReferenceNo: 'PAGING-1',
        amount: { value: '5000.00', currency: 'IDR' },
      });
      assert.equal(g.status, 200, g.text);
      const open = g.body.referenceNo as string;
      const at = formatJakartaTimestamp(Date.now());
      const lines = Array.from({ length: LINES }, (_, i) =>
        i + 1 === OPEN_LINE ? `${open},,5000.00,${at},00` : `PAGING-UNKNOWN-${i + 1},,1000.00,${at},00`,
      );
      const res = await fetch(`${gw.url}/admin/v1/providers/${acquirerId}/reconciliations`, {
        method: 'POST',
        headers: { authorization: `Bearer ${ADMIN_TOKEN}`, 'content-type': 'text/csv' },
        body: [HEADER, ...lines].join('\n'),
      });
      const run = await res.json();
      assert.equal(res.status, 201, JSON.stringify(run).slice(0, 300));
      assert.deepEqual(
        [run.lines, run.matched, run.problemCount, run.problems.length],
        [LINES, 0, LINES, 100],
        'every line is a problem; the first 100 come with the run',
      );
      assert.deepEqual(
        (run.problems as Problem[]).map((p) => p.line),
        Array.from({ length: 100 }, (_, i) => i + 1),
      );
      assert.equal(typeof run.nextCursor, 'string');

      // The run shows the same first page; the list shows how many, not which.
      const shown = await gw.admin('GET', `/reconciliations/${run.id}`);
      assert.deepEqual(shown.body, run);
      const listed = (await gw.admin('GET', `/providers/${acquirerId}/reconciliations`)).body.items[0];
      assert.equal(listed.id, run.id);
      assert.equal(listed.problemCount, LINES);
      assert.equal('problems' in listed, false, 'the list carries no problems');

      // Pages of 70 after the run's first page: 101-170, 171-240, 241-250, then the end.
      const seen: Problem[] = [...run.problems];
      const sizes: number[] = [];
      let pageOfOpen = '';
      for (let cursor = run.nextCursor as string | null; cursor !== null; ) {
        const query = `limit=70&cursor=${encodeURIComponent(cursor)}`;
        const page = await problemsOf(run.id, query);
        assert.equal(page.status, 200, JSON.stringify(page.body));
        sizes.push(page.body.items.length);
        seen.push(...page.body.items);
        if ((page.body.items as Problem[]).some((p) => p.line === OPEN_LINE)) pageOfOpen = query;
        cursor = page.body.nextCursor;
      }
      assert.deepEqual(sizes, [70, 70, 10]);
      assert.deepEqual(
        seen.map((p) => p.line),
        Array.from({ length: LINES }, (_, i) => i + 1),
        'every problem once, in line order',
      );
      assert.deepEqual(seen[OPEN_LINE - 1], {
        line: OPEN_LINE,
        type: 'missing_at_gateway',
        referenceNo: open,
        expected: '01',
        actual: '00',
      });
      // From the start without a cursor; the default page is as long as the run's first.
      const firstPage = await problemsOf(run.id, '');
      assert.deepEqual(firstPage.body, { items: run.problems, nextCursor: run.nextCursor });

      // A problem of the third page is applied by its line, and shows as applied on its page.
      const applied = await gw.admin('POST', `/reconciliations/${run.id}/problems/${OPEN_LINE}/apply`);
      assert.equal(applied.status, 200, JSON.stringify(applied.body));
      assert.equal((await gw.store.findTransaction(open))?.status, '00');
      const third = await problemsOf(run.id, pageOfOpen);
      const line = (third.body.items as Problem[]).find((p) => p.line === OPEN_LINE);
      assert.match(line?.resolvedAt ?? '', /^\d{4}-\d{2}-\d{2}T/);
      assert.equal((await gw.admin('POST', `/reconciliations/${run.id}/problems/${OPEN_LINE}/apply`)).status, 409);
      assert.equal((await gw.admin('POST', `/reconciliations/${run.id}/problems/${LINES + 1}/apply`)).status, 404);
    });

    it('ends with a null nextCursor, and refuses a cursor it did not issue and a bad limit', async () => {
      const at = formatJakartaTimestamp(Date.now());
      // The sandbox bank: no payment of its own in the report's day to add a missing_at_provider.
      const bankId = (await gw.store.getSetting('sandbox_bank_provider_id')) as string;
      const res = await fetch(`${gw.url}/admin/v1/providers/${bankId}/reconciliations`, {
        method: 'POST',
        headers: { authorization: `Bearer ${ADMIN_TOKEN}`, 'content-type': 'text/csv' },
        body: `${HEADER}\nPAGING-ONE,,1000.00,${at},00\n`,
      });
      const run = await res.json();
      assert.equal(res.status, 201);
      assert.deepEqual([run.problemCount, run.problems.length, run.nextCursor], [1, 1, null]);
      const page = await problemsOf(run.id, 'limit=1');
      assert.deepEqual([page.body.items.length, page.body.nextCursor], [1, null]);
      for (const query of ['cursor=not-a-cursor', 'limit=0', 'limit=501', 'limit=x', 'order=oldest']) {
        const refused = await problemsOf(run.id, query);
        assert.equal(refused.status, 400, `${query}: ${JSON.stringify(refused.body)}`);
      }
      assert.equal((await problemsOf('rec_nope', '')).status, 404);
    });
  });
}

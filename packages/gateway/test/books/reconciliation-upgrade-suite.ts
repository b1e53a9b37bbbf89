// Migration 027: runs kept before a run's problems had rows of their own (as one JSON value) are
// read a page at a time after the upgrade, in their order, with what each line reported (to apply
// it) and when it was applied; `problemCount` says how many.
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, describe, it } from 'node:test';
import type { Store } from '../../src/store/store.ts';
import { oldDatabase } from '../helpers/old-database.ts';
import type { StoreUnderTest } from '../helpers/store-under-test.ts';

const BEFORE = 26;
const PROBLEMS = [
  {
    line: 1,
    type: 'missing_at_gateway',
    referenceNo: '261126000000000001',
    expected: '01',
    actual: '00',
    reported: { amount: '10000.00', providerReference: 'ACQ-1' },
  },
  {
    line: 2,
    type: 'duplicate',
    referenceNo: '261126000000000001',
    reported: { amount: '10000.00', providerReference: null },
  },
  { line: null, type: 'missing_at_provider', referenceNo: '261126000000000009', expected: '5000.00' },
];

/** What a gateway of migration 026 wrote: a run with three problems (one applied) and a run with none. */
const OLD_ROWS: string[] = [
  `INSERT INTO reconciliations (id, provider_id, created_at, from_day, to_day, lines, matched, problems)
   VALUES ('rec_old', 'acq-1', 1, '2026-11-26', '2026-11-26', 3, 1, '${JSON.stringify(PROBLEMS)}')`,
  `INSERT INTO reconciliations (id, provider_id, created_at, from_day, to_day, lines, matched, problems)
   VALUES ('rec_clean', 'acq-1', 2, '2026-11-26', '2026-11-26', 1, 1, '[]')`,
  `INSERT INTO reconciliation_resolutions (reconciliation_id, line, reference_no, resolved_at)
   VALUES ('rec_old', 1, '261126000000000001', 7)`,
];

/** The old database opened by the current store (migrated the rest of the way). */
async function oldStore(under: StoreUnderTest, dir: string): Promise<{ store: Store; cleanup: () => Promise<void> }> {
  const old = await oldDatabase(under, dir, BEFORE, OLD_ROWS);
  const store = await old.open();
  return {
    store,
    cleanup: async () => {
      await store.close();
      await old.cleanup();
    },
  };
}

export function reconciliationUpgradeSuite(under: StoreUnderTest): void {
  describe(`reconciliation runs kept before migration 027, upgraded (${under.name})`, () => {
    const dir = mkdtempSync(join(tmpdir(), 'snapgate-reconciliation-upgrade-'));
    after(() => rmSync(dir, { recursive: true, force: true }));

    it('reads their problems a page at a time, in order, with what each line reported and when it was applied', async () => {
      const { store, cleanup } = await oldStore(under, dir);
      try {
        assert.equal((await store.findReconciliation('rec_old'))?.problemCount, 3);
        assert.equal((await store.findReconciliation('rec_clean'))?.problemCount, 0);
        assert.deepEqual(
          (await store.listReconciliations('acq-1', 10)).map((r) => [r.id, r.problemCount]),
          [
            ['rec_clean', 0],
            ['rec_old', 3],
          ],
        );
        const first = await store.reconciliationProblems('rec_old', { limit: 2 });
        assert.deepEqual(first.items, [
          { seq: 1, ...PROBLEMS[0], resolvedAt: 7 },
          { seq: 2, ...PROBLEMS[1] },
        ]);
        const rest = await store.reconciliationProblems('rec_old', { limit: 2, cursor: first.nextCursor as string });
        assert.deepEqual(rest, { items: [{ seq: 3, ...PROBLEMS[2] }], nextCursor: null });
        assert.deepEqual(await store.findReconciliationProblem('rec_old', 1), {
          seq: 1,
          ...PROBLEMS[0],
          resolvedAt: 7,
        });
        assert.equal(await store.findReconciliationProblem('rec_old', 3), undefined);
        assert.deepEqual(await store.reconciliationProblems('rec_clean', { limit: 2 }), {
          items: [],
          nextCursor: null,
        });
      } finally {
        await cleanup();
      }
    });
  });
}

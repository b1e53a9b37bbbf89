import type {
  ReconciliationRecord,
  ReconciliationResolution,
  StoredReconciliationProblem,
} from '../../records/book-records.ts';
import { type Page, type PageRequest, UniqueViolation } from '../../records/records.ts';
import { decodeCursor, toPage } from '../cursor.ts';
import { num, numOrNull, type Row, strOrNull } from '../rows.ts';
import { firstRow, type Sql } from '../sql.ts';

// Reconciliation runs (docs/books.md#runs): a run's row, and its problems one row each (migration
// 027), written in batches before the run's row and read a page at a time by their place in the run.

const PROBLEM_COLUMNS = [
  'reconciliation_id',
  'seq',
  'line',
  'type',
  'reference_no',
  'expected',
  'actual',
  'reported_amount',
  'reported_provider_reference',
] as const;

function reconciliationFromRow(r: Row): ReconciliationRecord {
  return {
    id: String(r.id),
    providerId: String(r.provider_id),
    createdAt: num(r.created_at),
    from: String(r.from_day),
    to: String(r.to_day),
    lines: num(r.lines),
    matched: num(r.matched),
    problemCount: num(r.problem_count),
  };
}

/** A problem row, with its parts only when it has them (absent, not undefined or null). */
function problemFromRow(r: Row): StoredReconciliationProblem {
  const p: StoredReconciliationProblem = {
    seq: num(r.seq),
    line: numOrNull(r.line),
    type: String(r.type) as StoredReconciliationProblem['type'],
  };
  const referenceNo = strOrNull(r.reference_no);
  const expected = strOrNull(r.expected);
  const actual = strOrNull(r.actual);
  const amount = strOrNull(r.reported_amount);
  const resolvedAt = numOrNull(r.resolved_at);
  if (referenceNo !== null) p.referenceNo = referenceNo;
  if (expected !== null) p.expected = expected;
  if (actual !== null) p.actual = actual;
  if (amount !== null) p.reported = { amount, providerReference: strOrNull(r.reported_provider_reference) };
  if (resolvedAt !== null) p.resolvedAt = resolvedAt;
  return p;
}

/** Stores problems of a run, in one statement; the run itself is inserted after all of them. */
export async function insertReconciliationProblems(
  sql: Sql,
  reconciliationId: string,
  problems: readonly StoredReconciliationProblem[],
): Promise<void> {
  if (problems.length === 0) return;
  const row = `(${PROBLEM_COLUMNS.map(() => '?').join(', ')})`;
  await sql.run(
    `INSERT INTO reconciliation_problems (${PROBLEM_COLUMNS.join(', ')}) VALUES ${problems.map(() => row).join(', ')}`,
    problems.flatMap((p) => [
      reconciliationId,
      p.seq,
      p.line,
      p.type,
      p.referenceNo ?? null,
      p.expected ?? null,
      p.actual ?? null,
      p.reported?.amount ?? null,
      p.reported?.providerReference ?? null,
    ]),
  );
}

export async function insertReconciliation(sql: Sql, run: ReconciliationRecord): Promise<void> {
  await sql.run(
    `INSERT INTO reconciliations (id, provider_id, created_at, from_day, to_day, lines, matched, problem_count)
     VALUES (?, ?, ?, ?, ?, ?, ?, ?)`,
    [run.id, run.providerId, run.createdAt, run.from, run.to, run.lines, run.matched, run.problemCount],
  );
}

export async function findReconciliation(sql: Sql, id: string): Promise<ReconciliationRecord | undefined> {
  const r = await firstRow(sql.all('SELECT * FROM reconciliations WHERE id = ?', [id]));
  return r ? reconciliationFromRow(r) : undefined;
}

/** A provider's runs, newest first. */
export async function listReconciliations(
  sql: Sql,
  providerId: string,
  limit: number,
): Promise<ReconciliationRecord[]> {
  const rows = await sql.all(
    'SELECT * FROM reconciliations WHERE provider_id = ? ORDER BY created_at DESC, id DESC LIMIT ?',
    [providerId, limit],
  );
  return rows.map(reconciliationFromRow);
}

const PROBLEM_SELECT = `SELECT p.*, r.resolved_at FROM reconciliation_problems p
  LEFT JOIN reconciliation_resolutions r ON r.reconciliation_id = p.reconciliation_id AND r.line = p.line`;

/** A run's problems in their order, `page.limit` after the cursor, each with when it was applied. */
export async function reconciliationProblems(
  sql: Sql,
  id: string,
  page: PageRequest,
): Promise<Page<StoredReconciliationProblem>> {
  const afterSeq = page.cursor ? decodeCursor(page.cursor)[0] : 0;
  const rows = await sql.all(`${PROBLEM_SELECT} WHERE p.reconciliation_id = ? AND p.seq > ? ORDER BY p.seq LIMIT ?`, [
    id,
    afterSeq,
    page.limit + 1,
  ]);
  return toPage(rows.map(problemFromRow), page.limit, (p) => [p.seq, '']);
}

/** The problem on a line of a run (a line has at most one). */
export async function findReconciliationProblem(
  sql: Sql,
  id: string,
  line: number,
): Promise<StoredReconciliationProblem | undefined> {
  const r = await firstRow(sql.all(`${PROBLEM_SELECT} WHERE p.reconciliation_id = ? AND p.line = ?`, [id, line]));
  return r ? problemFromRow(r) : undefined;
}

/** Records a problem as applied; false when it already was (the primary key decides). */
export async function resolveProblem(sql: Sql, resolution: ReconciliationResolution): Promise<boolean> {
  try {
    await sql.run(
      'INSERT INTO reconciliation_resolutions (reconciliation_id, line, reference_no, resolved_at) VALUES (?, ?, ?, ?)',
      [resolution.reconciliationId, resolution.line, resolution.referenceNo, resolution.resolvedAt],
    );
    return true;
  } catch (e) {
    if (e instanceof UniqueViolation) return false;
    throw e;
  }
}
